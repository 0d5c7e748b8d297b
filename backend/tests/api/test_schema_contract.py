"""A request `/openapi.json` accepts is never refused for its shape: schemathesis generates
schema-valid requests (boundary values first, then random ones) for every operation and
sends them to a live `parley serve`; `contract_checks.refused_only_for_state` fails on any
400, 413 or 422 unless it is one of the few refusals that depend on what is stored, on who
asks or on the clock (each named there, with why JSON Schema cannot say it).

The server runs with settings other than the defaults (a 300-character message limit, 0.2 s
long polls, its own push hosts): the schema must state them as this server's settings say,
or the generator would send a 301-character message and get a 413. It runs twice: as the
person, then as an agent working a delegation, with the ids of things that exist (a chat, a
run, a thread, a question, a task), so that checks made after a lookup are reached too."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import spawn_server, token_for

BACKEND = Path(__file__).resolve().parents[2]
ST = str(Path(sys.executable).with_name("st"))
USER = "contract"
SETTINGS = {
    "PARLEY_DEV_LOGIN": "1",
    "PARLEY_SIGNUP": "open",
    "PARLEY_MAX_MESSAGE_CHARS": "300",
    "PARLEY_LONG_POLL_MAX": "0.2",
    "PARLEY_PUSH_ALLOWED_HOSTS": "push.invalid,*.push.invalid:8443",
}
CONFIG = """\
headers = {{ Authorization = "Bearer {token}" }}

[parameters]
"path.user_id" = "{user}"
"path.conversation_id" = "{conversation_id}"
"path.run_id" = "{run_id}"
"path.thread_id" = "{thread_id}"
"path.question_id" = "{question_id}"
"path.number" = "1"
"""


async def _ok(client: httpx.AsyncClient, method: str, path: str, token: str, **kw: Any) -> Any:
    response = await client.request(
        method, f"/api/{USER}{path}", headers={"Authorization": f"Bearer {token}"}, **kw
    )
    assert response.status_code < 300, response.text
    return response.json()


async def _world(base: str) -> dict[str, dict[str, Any]]:
    """A chat with a task, a parent agent's run delegating to a child agent that claimed it,
    and the child's question to the person: the ids each run of the generator works on."""
    person = token_for(USER, ttl=7200)
    boss = token_for(USER, ttl=7200, agent="boss")
    child = token_for(USER, ttl=7200, agent="fuzzbot")
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        said = {"message": "add a task to buy milk"}
        chat = await _ok(client, "POST", "/chat", person, json=said)
        run = await _ok(client, "POST", "/runs", boss, json={"title": "a job"})
        thread = await _ok(
            client,
            "POST",
            f"/runs/{run['id']}/delegations",
            boss,
            json={"agent": "fuzzbot", "task": "do the job"},
        )
        claimed = await _ok(client, "GET", "/delegations/next", child)
        assert claimed["delegation"]["thread_id"] == thread["thread_id"]
        asked = await _ok(
            client,
            "POST",
            f"/runs/{thread['child_run_id']}/messages",
            child,
            json={"text": "which job?", "kind": "question"},
        )
    common = {"thread_id": thread["thread_id"], "question_id": asked["id"]}
    return {
        "person": {
            "token": person,
            "conversation_id": chat["conversation_id"],
            "run_id": run["id"],
            **common,
        },
        "agent": {
            "token": child,
            "conversation_id": thread["thread_id"],
            "run_id": thread["child_run_id"],
            **common,
        },
    }


# What the agent's run covers: the routes an agent's token reaches (it is 403 elsewhere).
AGENT_ROUTES = r"/(runs|delegations|inbox|questions|conversations/\{conversation_id\}/messages)"


async def _generate(
    base: str, who: dict[str, Any], tmp_path: Path, name: str, *only: str
) -> str | None:
    """One schemathesis run as `who` (on the paths `only` matches); its report if a check
    failed."""
    config = tmp_path / f"{name}.toml"
    config.write_text(CONFIG.format(user=USER, **who))
    process = await asyncio.create_subprocess_exec(
        ST,
        "--config-file",
        str(config),
        "run",
        f"{base}/openapi.json",
        "--mode",
        "positive",
        "--phases",
        "coverage,fuzzing",
        "--checks",
        "refused_only_for_state",
        "--max-examples",
        os.environ.get("PARLEY_CONTRACT_EXAMPLES", "5"),
        "--seed",
        os.environ.get("PARLEY_CONTRACT_SEED", "1"),
        "--workers",
        "1",  # see tests/fuzz: hypothesis' regex parsing is not thread-safe on 3.11
        "--request-timeout",
        "10",
        "--continue-on-failure",
        "--no-shrink",
        # Event streams never end; deleting the shared ids would leave later cases nothing
        # to reach, and a DELETE has no body or query to be refused.
        "--exclude-path-regex",
        "/events$",
        "--exclude-method",
        "DELETE",
        *only,
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.api.contract_checks",
            "PYTHONPATH": str(BACKEND),
        },
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    report = output.decode(errors="replace")
    assert " generated" in report, report[-5000:]  # it ran, and reached the server
    return None if process.returncode == 0 else report[-20000:]


@pytest.mark.timeout(900)
async def test_requests_the_schema_accepts_are_never_refused_for_their_shape(
    migrated, db, tmp_path
):
    _, base = await spawn_server(migrated, **SETTINGS)
    world = await _world(base)
    failed = {}
    for name, who in world.items():
        only = ("--include-path-regex", AGENT_ROUTES) if name == "agent" else ()
        report = await _generate(base, who, tmp_path, name, *only)
        if report is not None:
            failed[name] = report
    assert failed == {}, "\n\n".join(f"== as the {k}\n{v}" for k, v in failed.items())
