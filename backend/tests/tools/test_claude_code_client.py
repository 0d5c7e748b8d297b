"""The real Claude Code CLI (the one claude-agent-sdk bundles) as Parley's MCP client, offline:
the fake Messages API makes it call `ask_user`, over HTTP with an agent key header
(`--mcp-config`) and over stdio (`parley mcp`); the person answers through REST, and the CLI's
tool result, which the CLI sends back to the model, carries the answer. The CLI's call id
(`claudecode/toolUseId`) is what Parley remembers the call by. And the documented path for a
client without MCP tasks across an API death: `ask_user` returns `waiting` with the question
id, the instance that served it is killed (-9), and `wait_for_answer`, through the same address
(now reaching the other instance, as behind a load balancer), gets the answer."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from parley.db import Database
from tests.conftest import PARLEY, SECRET, eventually, spawn_server, token_for
from tests.tools.front import Front
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import (
    FakeAnthropic,
    Reply,
    mcp_tool,
    result_json,
    say,
    tool_results,
)

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
        cli = await claude_p(fake, tmp_path, config, "Ask the person which colour", "ask_user")
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
        results = [block for request in fake.requests for block in tool_results(request)]
    assert len(results) == 1, out.decode()[-2000:]
    said = json.dumps(results[0]["content"]).replace('\\"', '"').replace(" ", "")
    assert '"answer":"Blue"' in said and '"answered_by":"alice"' in said, said
    assert not results[0].get("is_error")
    async with db.connection() as conn:
        remembered = await conn.fetch("SELECT key, tool, wait FROM mcp_calls")
        asked = await conn.fetchval("SELECT count(*) FROM questions")
    assert asked == 1
    assert [(r["tool"], r["key"].startswith("c:toolu_")) for r in remembered] == [
        ("ask_user", True)
    ]


def claude_p(fake: FakeAnthropic, home: Path, config: Path, prompt: str, *tools: str) -> Any:
    """`claude -p` in stream mode, offline against `fake`, in a session of its own."""
    assert CLI is not None
    return asyncio.create_subprocess_exec(
        str(CLI),
        "-p",
        prompt,
        "--mcp-config",
        str(config),
        "--strict-mcp-config",
        "--allowedTools",
        ",".join(f"mcp__parley__{tool}" for tool in tools),
        "--output-format",
        "stream-json",
        "--verbose",
        env={
            "PATH": os.environ["PATH"],
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "x",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CONFIG_DIR": str(home / ".config"),
            "HOME": str(home),
        },
        cwd=str(home),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )


async def test_claude_code_gets_the_answer_across_an_api_restart(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    # A short in-band wait, so `ask_user` answers `waiting` while the person has not answered.
    (first, a), (_second, b) = await asyncio.gather(
        spawn_server(migrated, PARLEY_TOOL_WAIT_MAX="2"),
        spawn_server(migrated, PARLEY_TOOL_WAIT_MAX="2"),
    )
    waiting = threading.Event()  # the model has read `waiting` and holds its turn
    killed = threading.Event()  # the instance that answered `waiting` is gone
    waited_after = threading.Event()  # the other instance answered wait_for_answer `waiting`
    seen: list[dict[str, Any]] = []  # every tool result the model read, in order

    def model(body: dict[str, Any]) -> Reply:
        """Reads the last tool result as a model following the tools' docstrings does: on
        `waiting` it calls wait_for_answer with the question id, on an answer it is done."""
        last = tool_results(body)[-1]
        seen.append(result_json(last) or {"error": last})
        if seen[-1].get("status") != "waiting":
            return say("Done")
        if killed.is_set():
            waited_after.set()
        elif not waiting.is_set():
            waiting.set()
            assert killed.wait(120), "the test never killed the first instance"
        return mcp_tool("parley", "wait_for_answer", question_id=seen[-1]["question_id"])

    async with Front(to=a) as front:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps(mcp_config("http", front.url, migrated)))
        with FakeAnthropic().running() as fake:
            fake.script_for("which colour", mcp_tool("parley", "ask_user", question="Which?"))
            fake.script_for("which colour", model)
            cli = await claude_p(
                fake, tmp_path, config, "Ask the person which colour", "ask_user", "wait_for_answer"
            )
            try:
                await eventually(lambda: asyncio.to_thread(waiting.wait, 0.5), within=90)
                front.to = b
                os.killpg(first.pid, signal.SIGKILL)
                await first.wait()
                killed.set()
                # The person answers while the CLI waits on the instance that is left.
                await eventually(lambda: asyncio.to_thread(waited_after.wait, 0.5), within=90)
                question_id = await open_question(db)
                async with httpx.AsyncClient(base_url=front.url, timeout=30) as rest:
                    answered = await rest.post(
                        f"/api/{USER}/questions/{question_id}/answer",
                        json={"text": "Blue"},
                        headers={"Authorization": f"Bearer {token_for(USER)}"},
                    )
                assert answered.status_code == 201, answered.text
                _out, err = await asyncio.wait_for(cli.communicate(), 120)
            finally:
                killed.set()
                if cli.returncode is None:
                    os.killpg(cli.pid, signal.SIGKILL)
                    await cli.wait()
    assert cli.returncode == 0, err.decode()[-2000:]
    # Before the kill the model read `waiting` with the question's id; after it, on the other
    # instance, `waiting` again until the person answered, and then the answer: no call failed.
    assert seen[0]["status"] == "waiting" and seen[0]["question_id"] == question_id, seen
    statuses = [result.get("status") for result in seen]
    assert statuses == ["waiting"] * (len(seen) - 1) + ["answered"] and len(seen) >= 3, seen
    assert {k: seen[-1].get(k) for k in ("status", "answer", "answered_by", "question_id")} == {
        "status": "answered",
        "answer": "Blue",
        "answered_by": USER,
        "question_id": question_id,
    }, seen
    async with db.connection() as conn:
        asked = await conn.fetch("SELECT message_id, status FROM questions")
        answers = await conn.fetchval("SELECT count(*) FROM messages WHERE kind = 'answer'")
    assert [(r["message_id"], r["status"]) for r in asked] == [(question_id, "answered")]
    assert answers == 1


async def _asked(db: Database) -> bool:
    return await open_question(db) is not None
