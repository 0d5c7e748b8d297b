"""The real Claude Code CLI (the one claude-agent-sdk bundles) as Parley's MCP client, offline:
the fake Messages API makes it call `ask_user`, over HTTP with an agent key header
(`--mcp-config`) and over stdio (`parley mcp`); the person answers through REST, and the CLI's
tool result, which the CLI sends back to the model, carries the answer. The CLI's call id
(`claudecode/toolUseId`) is what Parley remembers the call by."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from parley.db import Database
from tests.conftest import PARLEY, SECRET, eventually, spawn_server, token_for
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, mcp_tool, say

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(240)]

USER, AGENT = "alice", "claude"


def mcp_config(transport: str, base: str, database_url: str) -> dict[str, Any]:
    key = token_for(USER, agent=AGENT)
    if transport == "http":
        server = {
            "type": "http",
            "url": f"{base}/mcp",
            "headers": {"Authorization": f"Bearer {key}"},
        }
    else:
        server = {
            "type": "stdio",
            "command": PARLEY,
            "args": ["mcp"],
            "env": {
                "PARLEY_TOKEN": key,
                "PARLEY_AUTH_SECRET": SECRET,
                "DATABASE_URL": database_url,
            },
        }
    return {"mcpServers": {"parley": server}}


async def open_question(db: Database) -> int | None:
    async with db.connection() as conn:
        found = await conn.fetchval("SELECT message_id FROM questions WHERE status = 'open'")
    return int(found) if found is not None else None


@pytest.mark.parametrize("transport", ["http", "stdio"])
async def test_claude_code_asks_the_person_and_gets_the_answer(
    migrated: str, db: Database, tmp_path: Path, transport: str
) -> None:
    _process, base = await spawn_server(migrated)
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(mcp_config(transport, base, migrated)))
    with FakeAnthropic().running() as fake:
        fake.script(mcp_tool("parley", "ask_user", question="Which colour?"), say("Blue it is"))
        env = {
            "PATH": os.environ["PATH"],
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "x",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CONFIG_DIR": str(tmp_path / ".config"),
            "HOME": str(tmp_path),
        }
        cli = await asyncio.create_subprocess_exec(
            str(CLI),
            "-p",
            "Ask the person which colour",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__parley__ask_user",
            "--output-format",
            "stream-json",
            "--verbose",
            env=env,
            cwd=str(tmp_path),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            await eventually(lambda: _asked(db), within=90)
            question_id = await open_question(db)
            async with httpx.AsyncClient(base_url=base, timeout=30) as rest:
                answered = await rest.post(
                    f"/api/{USER}/questions/{question_id}/answer",
                    json={"text": "Blue"},
                    headers={"Authorization": f"Bearer {token_for(USER)}"},
                )
            assert answered.status_code == 201, answered.text
            out, err = await asyncio.wait_for(cli.communicate(), 90)
        finally:
            if cli.returncode is None:
                os.killpg(cli.pid, 9)
                await cli.wait()
        assert cli.returncode == 0, err.decode()[-2000:]
        tool_results = [
            block
            for request in fake.requests
            for message in request.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
    assert len(tool_results) == 1, out.decode()[-2000:]
    said = json.dumps(tool_results[0]["content"]).replace('\\"', '"').replace(" ", "")
    assert '"answer":"Blue"' in said and '"answered_by":"alice"' in said, said
    assert not tool_results[0].get("is_error")
    async with db.connection() as conn:
        remembered = await conn.fetch("SELECT key, tool, wait FROM mcp_calls")
        asked = await conn.fetchval("SELECT count(*) FROM questions")
    assert asked == 1
    assert [(r["tool"], r["key"].startswith("c:toolu_")) for r in remembered] == [
        ("ask_user", True)
    ]


async def _asked(db: Database) -> bool:
    return await open_question(db) is not None
