"""A real terminal for a program that wants one: a private tmux server (its own socket, no
user configuration) with one 200x50 window, typed into with `send-keys` and read with
`capture-pane`, the way a person at a keyboard sees it."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import eventually

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(
    TMUX is None, reason="tmux is missing (scripts/setup.sh --browser installs it)"
)


class Terminal:
    def __init__(self, socket: Path) -> None:
        self.socket = socket
        self.pid: int | None = None  # the program in the window

    async def tmux(self, *args: str) -> str:
        assert TMUX is not None
        process = await asyncio.create_subprocess_exec(
            TMUX,
            "-S",
            str(self.socket),
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, f"tmux {args[0]}: {err.decode()}"
        return out.decode(errors="replace")

    async def start(self, argv: list[str], *, cwd: Path, env: dict[str, str]) -> None:
        """`argv` in the window, with exactly `env` (nothing of the test's own). The window
        stays when it exits, so its last words can still be read."""
        config = self.socket.with_name("tmux.conf")
        config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
        assert TMUX is not None
        process = await asyncio.create_subprocess_exec(
            TMUX,
            *("-S", str(self.socket), "-f", str(config)),
            *("new-session", "-d", "-x", "200", "-y", "50", "-c", str(cwd)),
            *("env", "-i", *(f"{k}={v}" for k, v in env.items()), *argv),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, err.decode()
        self.pid = int((await self.tmux("display-message", "-p", "#{pane_pid}")).strip())

    async def screen(self) -> str:
        return await self.tmux("capture-pane", "-p", "-J")

    async def shows(self, text: str, *, within: float = 60) -> str:
        """The screen, once it shows `text` (the screen as it was, if it never does)."""
        seen = ""

        async def there() -> bool:
            nonlocal seen
            seen = await self.screen()
            return text in seen

        try:
            await eventually(there, within=within)
        except AssertionError:
            raise AssertionError(f"the terminal never showed {text!r}:\n{seen}") from None
        return seen

    async def type(self, text: str) -> None:
        """Types `text` into the prompt and, once it shows there, presses Enter (typed and
        entered in one burst, a TUI may take it for a paste)."""
        await self.tmux("send-keys", "-l", text)
        await self.shows(text, within=30)
        await self.tmux("send-keys", "Enter")

    async def close(self) -> None:
        """Ends the program and everything it started (a hook still waiting), then tmux."""
        doomed: list[psutil.Process] = []
        if self.pid is not None:
            with contextlib.suppress(psutil.NoSuchProcess):
                top = psutil.Process(self.pid)
                doomed = [top, *top.children(recursive=True)]
        for process in doomed:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        with contextlib.suppress(AssertionError, FileNotFoundError):
            await self.tmux("kill-server")


@contextlib.asynccontextmanager
async def terminal(tmp_path: Path) -> AsyncIterator[Terminal]:
    running = Terminal(tmp_path / "tmux.sock")
    try:
        yield running
    finally:
        await running.close()
