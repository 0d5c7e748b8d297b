"""The real Claude Code CLI (the one claude-agent-sdk bundles), offline against the fake
Messages API, running outside Parley and asking the person through it: `claude -p` with
Parley's `approve_tool_use` as its permission-prompt tool (over `/mcp`, an agent key as its
bearer), and `claude -p` whose PreToolUse hook is `parley hook claude-code`. The model
writes a file: it exists once the person allows it, and is never written when they deny it,
Claude Code (and so the model) being told their reason."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from parley.db import Database
from tests.conftest import PARLEY, Server, eventually, token_for
from tests.permission_requests.helpers import questions
from tests.runs.helpers import Actor
from tests.work.conftest import CLI, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, Reply, ToolUse, say, tool_results

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(240)]

USER, AGENT = "ann", "laptop-cc"


def setup(kind: str, base: str, tmp_path: Path) -> list[str]:
    """The CLI's arguments that send its permission decisions to Parley."""
    key = token_for(USER, agent=AGENT)
    if kind == "prompt-tool":
        config = tmp_path / "mcp.json"
        server = {
            "type": "http",
            "url": f"{base}/mcp",
            "headers": {"Authorization": f"Bearer {key}"},
        }
        config.write_text(json.dumps({"mcpServers": {"parley": server}}))
        return [
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--permission-prompt-tool",
            "mcp__parley__approve_tool_use",
        ]
    env = f"PARLEY_URL={shlex.quote(base)} PARLEY_TOKEN={shlex.quote(key)}"
    command = f"{env} {shlex.quote(PARLEY)} hook claude-code --machine laptop"
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 600}]}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    return ["--settings", str(settings)]


def claude_p(fake: FakeAnthropic, home: Path, prompt: str, args: list[str]) -> Any:
    assert CLI is not None
    return asyncio.create_subprocess_exec(
        str(CLI),
        "-p",
        prompt,
        *args,
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


@pytest.mark.parametrize("kind", ["prompt-tool", "hook"])
@pytest.mark.parametrize("answer", ["allow", "deny"])
async def test_a_write_waits_for_the_person(
    server: Server, db: Database, tmp_path: Path, kind: str, answer: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    target = home / "notes.md"
    write = ToolUse("Write", {"file_path": str(target), "content": "# notes\n"})
    with FakeAnthropic().running() as fake:
        fake.script(Reply([write]), say("Done"))
        cli = await claude_p(fake, home, "Write the notes", setup(kind, server.base_url, tmp_path))
        try:

            async def asked() -> bool:
                return len(await questions(db)) == 1

            await eventually(asked, within=120)
            [question] = await questions(db)
            assert question["asked_by"] == AGENT and question["mode"] == "inbox"
            assert question["meta"]["permission"]["tool"] == "Write"
            assert question["meta"]["permission"]["tool_use_id"] == write.id
            await server.waiting_for(question["message_id"])
            assert cli.returncode is None and not target.exists()  # it waits for the person
            body = {"decision": "allow"} if answer == "allow" else {"text": "no, not today"}
            await Actor(server, USER).ok(
                "POST", f"/questions/{question['message_id']}/answer", 201, json=body
            )
            out, err = await asyncio.wait_for(cli.communicate(), 120)
        finally:
            if cli.returncode is None:
                os.killpg(cli.pid, 9)
                await cli.wait()
        assert cli.returncode == 0, err.decode()[-2000:]
        results = [block for request in fake.requests for block in tool_results(request)]
    [result] = [r for r in results if r.get("tool_use_id") == write.id]
    told = json.dumps(result.get("content"))
    if answer == "allow":
        assert target.read_text() == "# notes\n", out.decode()[-2000:]
        assert not result.get("is_error"), told
    else:
        assert not target.exists()
        assert result.get("is_error") and "no, not today" in told, told
    assert len(await questions(db)) == 1
