"""The real Claude Code CLI, interactive (on a pseudo-terminal), takes Parley's MCP tasks: it
declares the tasks extension (`-p` mode does not), so `ask_user` answers at once with a task,
which the CLI moves to the background and polls with `tasks/get`. The instance that created the
task is killed (-9) while the person has not answered, as soon as a poll reaches it (so that
poll may fail: the CLI counts it and polls again); the CLI's next polls, through the same
address, reach the other instance; the person answers by REST, and the task's result reaches
the model as the CLI's notification, in the next request to the (fake) Messages API."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import re
import signal
import struct
import termios
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from parley.db import Database
from tests.conftest import eventually, spawn_server, token_for
from tests.tools.front import Front
from tests.tools.test_claude_code_client import USER, mcp_config, open_question
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, mcp_tool, say

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(240)]

# Interactive Claude Code asks before using an API key from the environment, unless the key's
# last 20 characters are in its approved list; and before trusting a folder, unless told.
KEY = "sk-ant-api03-offline-test-key-0123456789abcdefghij"


def settled_config(home: Path) -> Path:
    """A config dir where onboarding, the key and the folder's trust are already settled."""
    config = home / ".config"
    config.mkdir()
    (config / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                "projects": {str(home): {"hasTrustDialogAccepted": True}},
            }
        )
    )
    return config


@asynccontextmanager
async def interactive(
    fake: FakeAnthropic, home: Path, mcp: Path, prompt: str
) -> AsyncIterator[None]:
    """`claude "<prompt>"` on a pseudo-terminal (what it prints is read and dropped, so it
    never blocks on a full terminal); killed with its process group on the way out."""
    assert CLI is not None
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    try:
        process = await asyncio.create_subprocess_exec(
            str(CLI),
            prompt,
            "--mcp-config",
            str(mcp),
            "--strict-mcp-config",
            "--allowedTools",
            "mcp__parley__ask_user",
            env={
                "PATH": os.environ["PATH"],
                "ANTHROPIC_BASE_URL": fake.url,
                "ANTHROPIC_API_KEY": KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CONFIG_DIR": str(settled_config(home)),
                "HOME": str(home),
                "TERM": "xterm-256color",
            },
            cwd=str(home),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
    finally:
        os.close(slave)
    loop = asyncio.get_running_loop()

    def drain() -> None:
        try:
            os.read(master, 65536)
        except OSError:  # the terminal's other end closed
            loop.remove_reader(master)

    loop.add_reader(master, drain)
    try:
        yield
    finally:
        loop.remove_reader(master)
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        os.close(master)


NOTIFICATION = re.compile(
    r"<task-notification>.*?<status>(\w+)</status>.*?<result>\s*(\{.*?\})\s*</result>", re.S
)


def notified(fake: FakeAnthropic) -> tuple[str, dict[str, Any]] | None:
    """The status and result of the last task notification the CLI gave the model."""
    found = NOTIFICATION.findall(
        "\n".join(
            block.get("text", "")
            for body in fake.requests
            for message in body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
        )
    )
    return (found[-1][0], json.loads(found[-1][1])) if found else None


def said_to_model(fake: FakeAnthropic) -> str:
    return "\n".join(json.dumps(body.get("messages", [])) for body in fake.requests)


async def test_interactive_claude_code_gets_the_answer_as_a_task_across_a_kill_9(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    # A short in-band wait, so a CLI that took no task would show `waiting`, not hang.
    (first, a), (_second, b) = await asyncio.gather(
        spawn_server(migrated, PARLEY_TOOL_WAIT_MAX="2"),
        spawn_server(migrated, PARLEY_TOOL_WAIT_MAX="2"),
    )

    async with Front(to=a) as front:
        mcp = tmp_path / "mcp.json"
        mcp.write_text(json.dumps(mcp_config("http", front.url, migrated)))
        with FakeAnthropic().running() as fake:
            fake.script_for("which colour", mcp_tool("parley", "ask_user", question="Which?"))
            fake.script_for("which colour", say("Noted."))  # every later turn
            async with interactive(fake, tmp_path, mcp, "Ask the person which colour"):
                await eventually(lambda: _polled(front, 1), within=90)
                assert await open_question(db) is not None
                front.to = b
                os.killpg(first.pid, signal.SIGKILL)
                await first.wait()
                # The CLI goes on polling, now on the instance that is left.
                polled = front.calls("tasks/get")
                await eventually(lambda: _polled(front, polled + 1), within=60)
                question_id = await open_question(db)
                async with httpx.AsyncClient(base_url=front.url, timeout=30) as rest:
                    answered = await rest.post(
                        f"/api/{USER}/questions/{question_id}/answer",
                        json={"text": "Blue"},
                        headers={"Authorization": f"Bearer {token_for(USER)}"},
                    )
                assert answered.status_code == 201, answered.text
                await eventually(lambda: _notified(fake), within=90)
    # The one tool call took a task (the CLI moved it to the background), and the task's
    # notification, completed, carried the person's answer.
    assert front.calls("tools/call") == 1
    assert "started server-side task" in said_to_model(fake)
    assert notified(fake) == (
        "completed",
        {"question_id": question_id, "status": "answered", "answer": "Blue", "answered_by": USER},
    )
    async with db.connection() as conn:
        asked = await conn.fetch("SELECT message_id, status FROM questions")
        answers = await conn.fetchval("SELECT count(*) FROM messages WHERE kind = 'answer'")
    assert [(r["message_id"], r["status"]) for r in asked] == [(question_id, "answered")]
    assert answers == 1


async def _polled(front: Front, times: int) -> bool:
    return front.calls("tasks/get") >= times


async def _notified(fake: FakeAnthropic) -> bool:
    return notified(fake) is not None
