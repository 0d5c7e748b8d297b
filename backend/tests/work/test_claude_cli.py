"""What the bundled `claude` CLI does, checked directly through claude-agent-sdk.

The session manager relies on each of these; specs/work-sessions.md records them. The CLI
runs for real, offline, against the fake Messages API.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
    SystemMessage,
)
from claude_agent_sdk.types import PermissionResultAllow, PermissionResultDeny

from parley.work.permissions import hook_output
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


def options(fake: FakeAnthropic, tmp_path: Path, home: Path, **extra: Any) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(
        cli_path=str(CLI),
        cwd=str(tmp_path),
        env={
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "x",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CLAUDE_CONFIG_DIR": str(tmp_path / ".config"),
            "HOME": str(home),
        },
        **extra,
    )


@asynccontextmanager
async def client(opts: ClaudeAgentOptions) -> AsyncIterator[ClaudeSDKClient]:
    async with ClaudeSDKClient(opts) as connected:
        yield connected


async def prompt(c: ClaudeSDKClient, text: str) -> list[Any]:
    await c.query(text)
    return [m async for m in c.receive_response()]


def result(found: list[Any]) -> ResultMessage:
    return next(m for m in found if isinstance(m, ResultMessage))


async def test_one_process_keeps_context_and_asks_can_use_tool(
    fake_api: FakeAnthropic, tmp_path: Path, claude_home: Path
) -> None:
    asked: list[str] = []

    async def can_use_tool(tool: str, tool_input: dict[str, Any], _ctx: Any) -> Any:
        asked.append(tool_input.get("command", ""))
        if "forbidden" in tool_input.get("command", ""):
            return PermissionResultDeny(message="no")
        return PermissionResultAllow()

    fake_api.script(
        say("Noted"),
        bash("echo allowed > a.txt"),
        say("ran"),
        bash("echo forbidden > b.txt"),
        say("denied"),
    )
    async with client(options(fake_api, tmp_path, claude_home, can_use_tool=can_use_tool)) as c:
        pid = c._transport._process.pid  # type: ignore[union-attr]
        await prompt(c, "the word is plum")
        await prompt(c, "write a")
        await prompt(c, "write b")
        assert c._transport._process.pid == pid  # type: ignore[union-attr]
    assert "the word is plum" in fake_api.texts_sent(-1)  # context kept in one process
    assert asked == ["echo allowed > a.txt", "echo forbidden > b.txt"]
    assert (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()


async def test_interrupt_ends_a_prompt_and_resume_continues_a_session(
    fake_api: FakeAnthropic, tmp_path: Path, claude_home: Path
) -> None:
    fake_api.script(say("x " * 100, chunks=100, delay=0.1), say("after the stop"), say("resumed"))
    async with client(options(fake_api, tmp_path, claude_home, include_partial_messages=True)) as c:
        await c.query("long")
        found: list[Any] = []
        async for message in c.receive_response():
            found.append(message)
            if len(found) == 8:
                await c.interrupt()
        assert result(found).terminal_reason in ("aborted_streaming", "aborted_tools")
        session_id = result(await prompt(c, "still there?")).session_id
    async with client(options(fake_api, tmp_path, claude_home, resume=session_id)) as c:
        found = await prompt(c, "again")
    init = next(m for m in found if isinstance(m, SystemMessage) and m.subtype == "init")
    assert init.data["session_id"] == session_id
    assert "still there?" in fake_api.texts_sent(-1)


async def test_a_deferred_tool_call_runs_when_its_session_resumes_with_no_prompt(
    fake_api: FakeAnthropic, tmp_path: Path, claude_home: Path
) -> None:
    """The PreToolUse hook answers "defer": the prompt ends with the call kept; resuming
    the session through the client, with its input closed once connected and no prompt,
    fires the hook again for that call, runs it, finishes the turn and exits."""

    async def defer(_data: Any, _tool_use_id: Any, _ctx: Any) -> Any:
        return hook_output("defer")

    hooks = {"PreToolUse": [HookMatcher(matcher=None, hooks=[defer])]}
    fake_api.script(bash("echo once >> runs.txt"), say("continued"))
    async with client(options(fake_api, tmp_path, claude_home, hooks=hooks)) as c:
        deferred = result(await prompt(c, "run it"))
    assert deferred.stop_reason == "tool_deferred" and deferred.deferred_tool_use is not None
    assert not (tmp_path / "runs.txt").exists()
    allow = json.dumps(hook_output("allow"))
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "*",
                    "hooks": [{"type": "command", "command": f"cat >/dev/null; echo '{allow}'"}],
                }
            ]
        }
    }
    opts = options(
        fake_api, tmp_path, claude_home, resume=deferred.session_id, settings=json.dumps(settings)
    )
    async with client(opts) as c:
        await c._transport.end_input()  # type: ignore[union-attr]
        found = [m async for m in c.receive_messages()]  # to the end: the process exits
    assert (tmp_path / "runs.txt").read_text() == "once\n"
    final = result(found)
    assert final.stop_reason == "end_turn" and final.result == "continued"
