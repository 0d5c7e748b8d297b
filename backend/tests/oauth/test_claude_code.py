"""The real Claude Code CLI (the one claude-agent-sdk bundles) connects to `/mcp` through
Parley's OAuth flow, headless: `claude mcp add --transport http` with no header, then
`claude mcp login --no-browser`, which prints the authorization URL; the test is the person's
browser (signed in, allowing on the consent page) and follows the redirect to the CLI's own
loopback callback."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import signal
import struct
import termios
from asyncio.subprocess import Process
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import httpx
import pytest

from parley.oauth.clients import Clients, from_document
from tests.accounts.helpers import browser, signup
from tests.oauth.helpers import consent, consent_request
from tests.work.conftest import CLI, needs_cli

pytestmark = [needs_cli, pytest.mark.slow]
URL = re.compile(rb"https?://[^\s\x1b\x07]+/authorize\?[^\s\x1b\x07]+")
# What Claude Code names itself by (a Client ID Metadata Document) and what that document says;
# the test cannot reach claude.ai, so the copy Parley would have fetched is put in its store.
CLAUDE_CODE_ID = "https://claude.ai/oauth/claude-code-client-metadata"
CLAUDE_CODE_DOCUMENT = {
    "client_id": CLAUDE_CODE_ID,
    "client_name": "Claude Code",
    "redirect_uris": ["http://localhost/callback", "http://127.0.0.1/callback"],
    "token_endpoint_auth_method": "none",
}


def cli_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".config"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_API_KEY": "x",
    }


async def claude(home: Path, *args: str) -> tuple[int, str]:
    assert CLI is not None
    process = await asyncio.create_subprocess_exec(
        str(CLI),
        *args,
        env=cli_env(home),
        cwd=str(home),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
    return process.returncode or 0, out.decode(errors="replace")


@asynccontextmanager
async def terminal(home: Path, *args: str) -> AsyncIterator[tuple[Process, asyncio.StreamReader]]:
    """The CLI on a pseudo-terminal (`mcp login` refuses to run without one), very wide so a
    URL is never wrapped; killed with its process group on the way out."""
    assert CLI is not None
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 4000, 0, 0))
    try:
        process = await asyncio.create_subprocess_exec(
            str(CLI),
            *args,
            env={**cli_env(home), "TERM": "dumb"},
            cwd=str(home),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
    finally:
        os.close(slave)
    reader = asyncio.StreamReader()
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(master, "rb", 0)
    )
    try:
        yield process, reader
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        transport.close()


async def read_until(reader: asyncio.StreamReader, pattern: re.Pattern[bytes]) -> re.Match[bytes]:
    seen = b""
    while (found := pattern.search(seen)) is None:
        chunk = await asyncio.wait_for(reader.read(4096), timeout=60)
        assert chunk, seen.decode(errors="replace")
        seen += chunk
    return found


async def read_rest(reader: asyncio.StreamReader) -> str:
    """Whatever the CLI says until it closes its terminal."""
    seen = b""
    try:
        while chunk := await asyncio.wait_for(reader.read(4096), timeout=60):
            seen += chunk
    except OSError:  # the pty's other end closed (EIO)
        pass
    return seen.decode(errors="replace")


async def test_claude_code_signs_in_through_the_browser_and_connects(make_server, tmp_path, db):
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open"))
        web = await stack.enter_async_context(browser(server.base_url))
        await signup(web, "alice")
        await Clients(db, allow_private=False).save(
            from_document(CLAUDE_CODE_ID, CLAUDE_CODE_DOCUMENT), source="document"
        )
        url = f"{server.base_url}/mcp"
        code, out = await claude(tmp_path, "mcp", "add", "-s", "user", "-t", "http", "parley", url)
        assert code == 0, out
        login, output = await stack.enter_async_context(
            terminal(tmp_path, "mcp", "login", "parley", "--no-browser")
        )
        authorize_url = (await read_until(output, URL)).group(0).decode()
        assert authorize_url.startswith(f"{server.base_url}/authorize?")
        # the person's browser: the authorize step, the consent page, back to the CLI
        async with httpx.AsyncClient(timeout=30) as http:
            started = await http.get(authorize_url)
            shown, back = await consent(web, consent_request(started), expect_redirect=None)
            assert (shown["client_name"], shown["client_host"]) == ("Claude Code", "claude.ai")
            assert shown["agent"] == "claude-code"
            callback = await http.get(back)
        assert callback.status_code == 200, callback.text
        said = await read_rest(output)
        await asyncio.wait_for(login.wait(), timeout=60)
        assert login.returncode == 0, said
        # the CLI now reaches /mcp with the token it got: connected, as alice's agent
        code, out = await claude(tmp_path, "mcp", "get", "parley")
        assert code == 0 and "Connected" in out, out
        apps = (await web.get("/api/alice/connected-apps")).json()
        assert [(a["client_name"], a["agent"]) for a in apps] == [("Claude Code", "claude-code")]
        assert apps[0]["last_used_at"] is not None
