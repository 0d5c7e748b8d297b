"""`parley connect claude-code` and `parley disconnect claude-code` as a person runs them: the
real command in its own process with a fresh HOME, against a real server. It signs in (the
person's token, or a device code the test approves as the person in the web UI), makes the
machine's agent key, merges Parley into Claude Code's settings beside what was there, and
disconnecting takes out exactly that and revokes the key."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.accounts.helpers import browser, make_key, signup
from tests.conftest import PARLEY, free_port, token_for
from tests.device.helpers import decide
from tests.oauth.helpers import mcp_status

FAST = {"PARLEY_SIGNUP": "open", "PARLEY_CREDENTIAL_CACHE_SECONDS": 0, "PARLEY_DEVICE_INTERVAL": 1}
CODE = re.compile(rb"one-time code: ([A-Z]{4}-[A-Z]{4})")
# What the person had before: formatted their own way, so a byte-for-byte restore shows.
SETTINGS = b"""{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
        ]
    }
}
"""
CLAUDE_JSON = b'{"numStartups": 3, "mcpServers": {"other": {"type": "stdio", "command": "x"}}}'


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "PYTHONUNBUFFERED": "1", **extra}


async def parley(home: Path, *args: str, cwd: Path | None = None, **env: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        *args,
        env=env_for(home, **env),
        cwd=str(cwd or home),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout=90)
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
    return process.returncode or 0, out.decode(errors="replace")


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


async def _person(stack: AsyncExitStack, make_server: Any):
    server = await stack.enter_async_context(make_server(**FAST))
    web = await stack.enter_async_context(browser(server.base_url))
    await signup(web, "alice")
    return server, web


def check_hook(command: str, *, base: str, secret: str, machine: str) -> Path:
    """The hook names its key by a file the person alone can read: the key itself is in no
    settings file and no command line. Returns the key file."""
    assert secret not in command
    words = shlex.split(command)
    program = Path(words[0])
    assert program.is_absolute() and program.is_file() and program.name == "parley", words
    assert words[1:9] == [
        *("hook", "claude-code", "--url", base, "--user", "alice", "--machine", machine)
    ]
    assert words[9] == "--key-file"
    key_file = Path(words[10])
    assert key_file.read_text().strip() == secret and mode(key_file) == 0o600
    return key_file


async def test_with_the_persons_token_it_merges_into_existing_settings_and_disconnect_restores(
    make_server, tmp_path
):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        (tmp_path / ".claude").mkdir()
        settings_file, claude_json = (
            tmp_path / ".claude" / "settings.json",
            tmp_path / ".claude.json",
        )
        settings_file.write_bytes(SETTINGS)
        claude_json.write_bytes(CLAUDE_JSON)
        code, out = await parley(
            tmp_path,
            *("connect", "claude-code", "--url", base, "--machine", "ci-box"),
            PARLEY_TOKEN=token_for("alice"),
        )
        assert code == 0, out
        assert "as alice" in out
        keys = (await web.get("/api/alice/agent-keys")).json()
        assert [k["agent"] for k in keys] == ["claude-code-ci-box"]
        # the MCP server, beside the person's other one, with the key as its bearer token
        mcp = read(claude_json)
        assert mcp["numStartups"] == 3 and mcp["mcpServers"]["other"] == {
            "type": "stdio",
            "command": "x",
        }
        parley_server = mcp["mcpServers"]["parley"]
        assert parley_server["type"] == "http" and parley_server["url"] == f"{base}/mcp"
        secret = parley_server["headers"]["Authorization"].removeprefix("Bearer ")
        assert secret.startswith(keys[0]["prefix"])
        assert await mcp_status(base, secret) == 200
        # the hooks, after the person's own
        settings = read(settings_file)
        assert settings["model"] == "opus"
        assert settings["permissions"] == {"allow": ["Bash(npm test:*)"]}
        pre = settings["hooks"]["PreToolUse"]
        assert pre[0] == {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
        assert pre[1]["matcher"] == "*" and len(pre) == 2
        for event in ("PreToolUse", "Notification", "Stop"):
            (group,) = [g for g in settings["hooks"][event] if g.get("matcher") != "Bash"]
            (hook,) = group["hooks"]
            assert hook["type"] == "command" and hook["timeout"] > 0
            key_file = check_hook(hook["command"], base=base, secret=secret, machine="ci-box")
        # they hold a key: the person's only
        assert mode(settings_file) == mode(claude_json) == 0o600
        state = tmp_path / ".config" / "parley" / "connections.json"
        assert mode(state) == 0o600
        # disconnect: exactly what was there before, byte for byte; the key refused everywhere
        code, out = await parley(tmp_path, "disconnect", "claude-code")
        assert code == 0, out
        assert settings_file.read_bytes() == SETTINGS
        assert claude_json.read_bytes() == CLAUDE_JSON
        assert (await web.get("/api/alice/agent-keys")).json() == []
        assert await mcp_status(base, secret) == 401
        assert read(state) == {}
        assert not key_file.exists()
        code, out = await parley(tmp_path, "disconnect", "claude-code")
        assert code == 1 and "not connected" in out


async def test_the_device_flow_signs_in_and_project_scope_keeps_what_was_added_since(
    make_server, tmp_path
):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        project = tmp_path / "project"
        project.mkdir()
        process = await asyncio.create_subprocess_exec(
            PARLEY,
            *("connect", "claude-code", "--scope", "project", "--url", base, "--machine", "box"),
            env=env_for(tmp_path),
            cwd=str(project),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            assert process.stdout is not None
            seen = b""
            while b"Waiting" not in seen:
                line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
                assert line, seen.decode()
                seen += line
            found = CODE.search(seen)
            assert found is not None, seen.decode()
            # where to enter it: the web UI's page, and the page with the code filled in
            assert b"http://127.0.0.1:3000/device" in seen
            assert f"/device?user_code={found.group(1).decode()}".encode() in seen
            # the person approves in the web UI while the command polls
            approved = await decide(web, found.group(1).decode())
            assert approved.status_code == 200, approved.text
            assert approved.json()["machine"] == "box"
            rest, _ = await asyncio.wait_for(process.communicate(), timeout=60)
        finally:
            if process.returncode is None:
                os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        assert process.returncode == 0, (seen + rest).decode()
        # nothing the project commits holds the key: the server is Claude Code's "local"
        # scope (the person's ~/.claude.json, this project's entry), the hooks are in the
        # project's settings.local.json and name a key file outside the project
        assert not (project / ".mcp.json").exists()
        assert not (project / ".claude" / "settings.json").exists()
        claude_json, settings_file = (
            tmp_path / ".claude.json",
            project / ".claude" / "settings.local.json",
        )
        servers = read(claude_json)["projects"][str(project)]["mcpServers"]
        secret = servers["parley"]["headers"]["Authorization"][7:]
        assert await mcp_status(base, secret) == 200
        assert [k["agent"] for k in (await web.get("/api/alice/agent-keys")).json()] == [
            "claude-code-box"
        ]
        hooks = read(settings_file)["hooks"]
        assert set(hooks) == {"PreToolUse", "Notification", "Stop"}
        key_file = check_hook(
            hooks["Stop"][0]["hooks"][0]["command"], base=base, secret=secret, machine="box"
        )
        assert project not in key_file.parents
        for path in project.rglob("*"):
            assert path.is_dir() or secret not in path.read_text(), path
        # Claude Code adds a setting of its own meanwhile: disconnect keeps it
        mcp = read(claude_json)
        mcp["projects"][str(project)]["allowedTools"] = ["Read"]
        claude_json.write_text(json.dumps(mcp))
        code, out = await parley(
            tmp_path, "disconnect", "claude-code", "--scope", "project", cwd=project
        )
        assert code == 0, out
        assert read(claude_json) == {"projects": {str(project): {"allowedTools": ["Read"]}}}
        assert not settings_file.exists()  # it was Parley's alone
        assert not key_file.exists()
        assert await mcp_status(base, secret) == 401


async def test_refusals_change_nothing(make_server, tmp_path):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        args = ("connect", "claude-code", "--url", base, "--machine", "m")
        # an agent's key cannot make another key
        agent = await make_key(web, "alice", agent="planner")
        code, out = await parley(tmp_path, *args, PARLEY_TOKEN=agent["secret"])
        assert code == 1 and "agent's key" in out
        # a Parley that cannot be reached: said in a line, not a traceback
        code, out = await parley(
            tmp_path,
            *("connect", "claude-code", "--url", f"http://127.0.0.1:{free_port()}"),
            PARLEY_TOKEN=token_for("alice"),
        )
        assert code == 1 and "Cannot reach Parley" in out and "Traceback" not in out, out
        # settings that are not JSON: refused before anything is made
        (tmp_path / ".claude").mkdir()
        broken = tmp_path / ".claude" / "settings.json"
        broken.write_bytes(b"{not json")
        code, out = await parley(tmp_path, *args, PARLEY_TOKEN=token_for("alice"))
        assert code == 1 and "not JSON" in out
        assert broken.read_bytes() == b"{not json"
        # a project whose settings file, or its folder, is a link elsewhere: never written
        # through (a repository someone else wrote could point it anywhere)
        target = tmp_path / "elsewhere.json"
        target.write_bytes(b"{}")
        for name, link in (("repo", ".claude/settings.local.json"), ("repo2", ".claude")):
            project = tmp_path / name
            (project / ".claude").mkdir(parents=True)
            if link == ".claude":
                (project / ".claude").rmdir()
                (project / ".claude").symlink_to(tmp_path / "elsewhere-dir")
                (tmp_path / "elsewhere-dir").mkdir()
            else:
                (project / link).symlink_to(target)
            code, out = await parley(
                tmp_path, *args, "--scope", "project", cwd=project, PARLEY_TOKEN=token_for("alice")
            )
            assert code == 1 and "symbolic link" in out
        assert target.read_bytes() == b"{}"
        assert list((tmp_path / "elsewhere-dir").iterdir()) == []
        # a key must not travel in the clear to another host
        code, out = await parley(
            tmp_path,
            *("connect", "claude-code", "--url", "http://parley.example.com"),
            PARLEY_TOKEN=token_for("alice"),
        )
        assert code == 1 and "https" in out
        assert [k["agent"] for k in (await web.get("/api/alice/agent-keys")).json()] == ["planner"]
        assert not (tmp_path / ".claude.json").exists()
        assert [p.name for p in (tmp_path / "repo" / ".claude").iterdir()] == [
            "settings.local.json"  # the link, as it was
        ]


@pytest.mark.slow
async def test_the_real_claude_cli_lists_parley_after_connect(make_server, tmp_path):
    from tests.oauth.test_claude_code import claude
    from tests.work.conftest import CLI

    if CLI is None:
        pytest.skip("claude-agent-sdk's bundled CLI is missing")
    async with AsyncExitStack() as stack:
        server, _ = await _person(stack, make_server)
        base = server.base_url
        config = tmp_path / ".config"  # where the test's `claude` keeps its user settings
        code, out = await parley(
            tmp_path,
            *("connect", "claude-code", "--url", base, "--machine", "laptop"),
            PARLEY_TOKEN=token_for("alice"),
            CLAUDE_CONFIG_DIR=str(config),
        )
        assert code == 0, out
        assert (config / ".claude.json").is_file() and (config / "settings.json").is_file()
        code, out = await claude(tmp_path, "mcp", "get", "parley")
        assert code == 0, out
        assert f"{base}/mcp" in out and "Connected" in out, out
        code, out = await claude(tmp_path, "mcp", "list")
        assert code == 0 and "parley" in out, out
