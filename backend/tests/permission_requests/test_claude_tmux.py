"""Claude Code as a person runs it: the real bundled `claude`, interactive (no `-p`) in a real
terminal (tmux), offline against the fake Messages API, its hooks written by the real
`parley connect claude-code`. A `Write` waits until the person allows it (the file is
written) or denies it (it is not, and the model is told why); "Always allow this" answers the
same call next time with no question; the end of a turn reaches the inbox; a restart of
Parley while the hook waits changes nothing.

Claude Code's first-run screens (theme, "trust this folder?", "use this API key?") are
answered the way a person's earlier answers are kept: in its `.claude.json`."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from parley.db import Database
from tests.conftest import Server, eventually, spawn_server, token_for
from tests.connect.test_connect_claude_code import parley
from tests.permission_requests.helpers import questions
from tests.permission_requests.terminal import Terminal, needs_tmux, terminal
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, Reply, ToolUse, say, tool_results

pytestmark = [needs_cli, needs_tmux, pytest.mark.slow, pytest.mark.timeout(300)]

USER, MACHINE = "ann", "laptop"
AGENT = f"claude-code-{MACHINE}"  # the key `parley connect` makes for this machine
API_KEY = "sk-ant-api03-the-persons-own-key-for-the-fake-api"
READY = "shift+tab to cycle"  # the prompt's footer: Claude Code takes keys from here on


def remembered(config: Path, project: Path) -> None:
    """What Claude Code keeps of a person's first run: onboarding done (no theme picker, no
    sign-in screen), this folder trusted, this API key approved (by its last 20 characters)."""
    config.mkdir(parents=True)
    first_run = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }
    (config / ".claude.json").write_text(json.dumps(first_run))


@asynccontextmanager
async def claude_code(fake: FakeAnthropic, base: str, tmp_path: Path) -> AsyncIterator[Terminal]:
    """Claude Code at its prompt in a terminal, connected to Parley at `base` as a person
    connects it; the project folder is `tmp_path/project`."""
    home, project = tmp_path / "home", tmp_path / "project"
    config = home / ".config"  # CLAUDE_CONFIG_DIR: Claude Code's and connect's user files
    project.mkdir()
    remembered(config, project)
    code, out = await parley(
        home,
        *("connect", "claude-code", "--url", base, "--machine", MACHINE),
        PARLEY_TOKEN=token_for(USER),
        CLAUDE_CONFIG_DIR=str(config),
    )
    assert code == 0, out
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "TERM": "xterm-256color",
        "CLAUDE_CONFIG_DIR": str(config),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    assert CLI is not None
    async with terminal(tmp_path) as term:
        await term.start([str(CLI)], cwd=project, env=env)
        await term.shows(READY, within=120)
        yield term


async def asked(db: Database, n: int, *, within: float = 120) -> dict[str, Any]:
    """The n-th question, once it is asked."""

    async def there() -> bool:
        return len(await questions(db)) >= n

    await eventually(there, within=within)
    question = (await questions(db))[n - 1]
    assert question["asked_by"] == AGENT and question["mode"] == "inbox", question
    return question


def result_for(fake: FakeAnthropic, call: ToolUse) -> dict[str, Any] | None:
    """The tool result Claude Code sent the model for `call`, once it has."""
    for request in list(fake.requests):
        for block in tool_results(request):
            if block.get("tool_use_id") == call.id:
                return block
    return None


async def told(fake: FakeAnthropic, call: ToolUse) -> dict[str, Any]:
    async def there() -> bool:
        return result_for(fake, call) is not None

    await eventually(there, within=120)
    found = result_for(fake, call)
    assert found is not None
    return found


async def answer(server: Server, question: dict[str, Any], **body: str) -> None:
    """The person answers in Parley (the web UI's call)."""
    answered = await server.client.post(
        f"/api/{USER}/questions/{question['message_id']}/answer",
        json=body,
        headers=server.headers(USER),
    )
    assert answered.status_code == 201, answered.text


async def inbox(server: Server) -> list[str]:
    headers = server.headers(USER)
    box = (await server.client.get(f"/api/{USER}/inbox", headers=headers)).json()
    said = (
        await server.client.get(f"/api/{USER}/conversations/{box['id']}/messages", headers=headers)
    ).json()
    said = said if isinstance(said, list) else said["messages"]
    return [m["content"] for m in said if m["author"] == AGENT]


async def test_each_write_waits_for_the_person_and_the_end_reaches_the_inbox(
    server: Server, db: Database, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    allowed, denied = project / "a.md", project / "b.md"
    write_a = ToolUse("Write", {"file_path": str(allowed), "content": "# a\n"})
    write_b = ToolUse("Write", {"file_path": str(denied), "content": "# b\n"})
    with FakeAnthropic().running() as fake:
        fake.script(Reply([write_a]), Reply([write_b]), say("Wrote a.md; b.md was refused."))
        async with claude_code(fake, server.base_url, tmp_path) as term:
            await term.type("Write a.md and b.md")
            first = await asked(db, 1)
            assert first["meta"]["permission"]["tool"] == "Write"
            assert first["meta"]["permission"]["tool_use_id"] == write_a.id
            await server.waiting_for(first["message_id"])  # the hook is waiting on it
            await term.shows("running PreToolUse hook")  # and so is Claude Code
            assert not allowed.exists() and result_for(fake, write_a) is None
            await answer(server, first, decision="allow")
            assert not (await told(fake, write_a)).get("is_error")
            assert allowed.read_text() == "# a\n"

            second = await asked(db, 2)
            assert second["meta"]["permission"]["tool_use_id"] == write_b.id
            await server.waiting_for(second["message_id"])
            await answer(server, second, text="no, not b.md today")
            result = await told(fake, write_b)
            assert result.get("is_error") and "no, not b.md today" in json.dumps(result), result
            assert not denied.exists()
            await term.shows("denied this tool call: no, not b.md today")

            finished = f"Claude Code on {MACHINE} finished: Wrote a.md; b.md was refused."

            async def in_the_inbox() -> bool:
                return finished in await inbox(server)

            await eventually(in_the_inbox, within=60)
            await term.shows("Wrote a.md; b.md was refused.")
    assert len(await questions(db)) == 2


async def test_always_allow_answers_the_same_write_next_time(
    server: Server, db: Database, tmp_path: Path
) -> None:
    notes = tmp_path / "project" / "notes.md"
    first = ToolUse("Write", {"file_path": str(notes), "content": "one\n"})
    again = ToolUse("Write", {"file_path": str(notes), "content": "two\n"})
    with FakeAnthropic().running() as fake:
        fake.script(Reply([first]), Reply([again]), say("Saved the notes twice."))
        async with claude_code(fake, server.base_url, tmp_path) as term:
            await term.type("Save the notes twice")
            question = await asked(db, 1)
            await server.waiting_for(question["message_id"])
            always = await server.client.post(
                f"/api/{USER}/approval-rules/from-question/{question['message_id']}",
                headers=server.headers(USER),
            )
            assert always.status_code == 201, always.text
            assert always.json()["rule"]["decision"] == "allow"
            assert not (await told(fake, first)).get("is_error")
            # The same call again: the rule answers the hook, nobody is asked.
            result = await told(fake, again)
            assert not result.get("is_error"), result
            assert notes.read_text() == "two\n"
            await term.shows("Saved the notes twice.")
    assert len(await questions(db)) == 1


async def test_a_parley_restart_while_the_hook_waits_changes_nothing(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    notes = tmp_path / "project" / "notes.md"
    write = ToolUse("Write", {"file_path": str(notes), "content": "kept\n"})
    first, base = await spawn_server(migrated)
    with FakeAnthropic().running() as fake:
        fake.script(Reply([write]), say("Done."))
        async with claude_code(fake, base, tmp_path) as term:
            await term.type("Write the notes")
            question = await asked(db, 1)
            os.killpg(first.pid, signal.SIGKILL)
            await first.wait()
            await spawn_server(migrated, port=int(base.rsplit(":", 1)[1]))
            assert result_for(fake, write) is None and not notes.exists()
            async with httpx.AsyncClient(base_url=base, timeout=30) as rest:
                answered = await rest.post(
                    f"/api/{USER}/questions/{question['message_id']}/answer",
                    json={"decision": "allow"},
                    headers={"Authorization": f"Bearer {token_for(USER)}"},
                )
            assert answered.status_code == 201, answered.text
            assert not (await told(fake, write)).get("is_error")
            assert notes.read_text() == "kept\n"
            await term.shows("Done.")
    assert len(await questions(db)) == 1


async def test_esc_while_the_hook_waits_withdraws_the_question(
    server: Server, db: Database, tmp_path: Path
) -> None:
    """The person gives up in the terminal: Claude Code ends the waiting hook, and the card in
    Parley closes rather than ask about a call that no longer waits."""
    notes = tmp_path / "project" / "notes.md"
    write = ToolUse("Write", {"file_path": str(notes), "content": "never\n"})
    with FakeAnthropic().running() as fake:
        fake.script(Reply([write]), say("Stopped."))
        async with claude_code(fake, server.base_url, tmp_path) as term:
            await term.type("Write the notes")
            question = await asked(db, 1)
            await server.waiting_for(question["message_id"])
            await term.shows("running PreToolUse hook")
            await term.tmux("send-keys", "Escape")

            async def withdrawn() -> bool:
                [now] = await questions(db)
                return now["status"] == "closed"

            await eventually(withdrawn, within=60)
    assert not notes.exists()
