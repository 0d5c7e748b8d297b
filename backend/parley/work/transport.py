"""The one way Parley starts `claude`: claude-agent-sdk's `Transport` seam over a process that
Parley builds itself.

The SDK's own transport inherits the server's whole environment and shares its process
group, and gives up on the session when one line of output passes its buffer. This one
starts the process it is given (a sandbox, see `jail`) with exactly the environment it is
given, in a process group of its own (so killing the session can never reach the server),
reads its output through a bounded line reader that survives NUL bytes and very long lines,
and runs its `cleanups` (closing the session's relay channel) once the process is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil
from claude_agent_sdk import ProcessError, Transport

# A command's output may well hold a NUL, which PostgreSQL refuses: shown as ␀ (`parley.text`).
from parley.text import NUL_SHOWN_AS as NUL_SHOWN_AS
from parley.text import scrub
from parley.work import proctree

log = logging.getLogger(__name__)

# One line of the CLI's output (one JSON message); a longer one is dropped, not fatal.
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 256 * 1024
# After stdin closes, how long the CLI gets to save its session before its group is killed.
CLOSE_GRACE_SECONDS = 3.0


async def read_lines(
    stream: asyncio.StreamReader,
    *,
    max_line: int = MAX_LINE_BYTES,
    on_dropped: Callable[[int], None] | None = None,
) -> AsyncIterator[bytes]:
    """Newline-separated lines of `stream`, each at most `max_line` bytes; a longer one is
    skipped to its end (reported through `on_dropped` with its length) instead of ending
    the stream."""
    pending = bytearray()
    dropping = 0  # bytes of an over-long line skipped so far
    while chunk := await stream.read(_CHUNK):
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            length = dropping + len(pending) + end - start
            if dropping or length > max_line:
                if on_dropped is not None:
                    on_dropped(length)
                dropping = 0
            else:
                pending += chunk[start:end]
                yield bytes(pending)
            pending.clear()
            start = end + 1
        if dropping:
            dropping += len(chunk) - start
        else:
            pending += chunk[start:]
            if len(pending) > max_line:
                dropping = len(pending)
                pending.clear()
    if dropping and on_dropped is not None:  # the stream ended inside an over-long line
        on_dropped(dropping)
    elif pending:
        yield bytes(pending)


def parse_line(line: bytes) -> dict[str, Any] | None:
    """One line of the CLI's stream-json output as a message; None for anything else (a
    blank or diagnostic line, or JSON cut short)."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        log.warning("dropped a line of Claude Code output that is not JSON (%d bytes)", len(line))
        return None
    return scrub(data) if isinstance(data, dict) else None


class ProcessTransport(Transport):
    """`argv` run in `cwd` with exactly `env`, as the leader of a new process group."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        stdin: bool = True,
        max_line: int = MAX_LINE_BYTES,
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.stdin = stdin
        self.max_line = max_line
        self.process: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._exit_task: asyncio.Task[None] | None = None
        self._write_lock = asyncio.Lock()
        # Run once the process is gone (or could not start), whoever notices first.
        self.cleanups: list[Callable[[], Awaitable[None]]] = []
        # Set when Parley itself ends the process: its exit is then no failure to report.
        self.ending = False
        # What `kill` signalled beside the group: its End waits for these to be gone too.
        self.killed: list[psutil.Process] = []
        self.stderr: list[str] = []  # its last lines: what says why it failed

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def live_pid(self) -> int | None:
        """The pid while the process is there to be signalled: once the event loop has
        collected its exit the pid may be another process's."""
        return self.pid if self.is_ready() else None

    async def connect(self) -> None:
        if self.process is not None:
            return
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=asyncio.subprocess.PIPE if self.stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own group: a kill of the group never reaches us
            )
        except BaseException:
            await self.clean_up()
            raise
        self._stderr_task = asyncio.create_task(self._drain_stderr())
        self._exit_task = asyncio.create_task(self._after_exit(self.process))

    async def _after_exit(self, process: asyncio.subprocess.Process) -> None:
        await process.wait()
        await self.clean_up()

    async def clean_up(self) -> None:
        """Run the cleanups now, once (also when the process is only known to be killed: a
        session ended by Parley revokes its relay token at once, not when the kill lands)."""
        cleanups, self.cleanups = self.cleanups, []
        for cleanup in cleanups:
            try:
                await cleanup()
            except Exception:
                log.exception("cleaning up after Claude Code failed")

    async def wait(self) -> int:
        assert self.process is not None
        return await self.process.wait()

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        async for line in read_lines(self.process.stderr, max_line=64 * 1024):
            text = line.decode("utf-8", errors="replace").rstrip()
            if text:
                self._said(text)

    def _said(self, line: str) -> None:
        self.stderr = [*self.stderr[-19:], line]

    def start_error(self, exc: BaseException) -> str:
        """Why it could not start, as the run's error: its own last words first."""
        detail = " ".join(self.stderr[-3:]) or str(exc) or type(exc).__name__
        return f"Claude Code could not start: {detail}"[:2000]

    def exit_error(self, code: Any) -> str:
        detail = " ".join(self.stderr[-3:])
        text = f"Claude Code exited unexpectedly (exit code {code})"
        return f"{text}: {detail}"[:2000] if detail else text

    async def write(self, data: str) -> None:
        async with self._write_lock:
            process = self.process
            if process is None or process.stdin is None or process.returncode is not None:
                raise ProcessError("Claude Code is not running", exit_code=self._code())
            try:
                process.stdin.write(data.encode())
                await process.stdin.drain()
            except (ConnectionError, RuntimeError) as exc:
                raise ProcessError(f"Claude Code stopped reading: {exc}") from exc

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self._read()

    async def _read(self) -> AsyncIterator[dict[str, Any]]:
        assert self.process is not None and self.process.stdout is not None
        async for line in read_lines(
            self.process.stdout, max_line=self.max_line, on_dropped=self._dropped
        ):
            message = parse_line(line)
            if message is not None:
                yield message
        code = await self.process.wait()
        # An exit Parley caused ends the stream like any other: the SDK's client would log
        # an error for what is no failure (Parley's End, a shutdown).
        if code != 0 and not self.ending:
            raise ProcessError(f"Claude Code exited with code {code}", exit_code=code)

    def _dropped(self, length: int) -> None:
        log.warning("dropped a %d-byte line of Claude Code output (over the limit)", length)
        self._said(f"(a {length}-byte message was too long to read and was skipped)")

    def _code(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    async def end_input(self) -> None:
        async with self._write_lock:
            if self.process is not None and self.process.stdin is not None:
                with contextlib.suppress(Exception):
                    self.process.stdin.close()

    async def kill(self) -> None:
        """SIGKILL the whole group and every descendant now, and run the cleanups (its relay
        token is refused from now on, not once the kill lands). The descendants too, while
        the process is still there to find them by: the sandbox's init runs in a session of
        its own (bwrap's `--new-session`), out of the group's reach, and, as its PID
        namespace's init, ignores the parent-death signal; left alone it outlives the End by
        the time it takes to notice its child died."""
        self.ending = True
        pid = self.live_pid
        if pid is not None:
            self.killed = await asyncio.to_thread(proctree.kill_tree, pid, spare=pid, wait=False)
        await self.clean_up()

    async def close(self) -> None:
        """Stdin closes, the CLI gets a moment to save its session, then its whole group is
        killed; every wait is bounded."""
        self.ending = True
        process = self.process
        if process is None:
            await self.clean_up()
            return
        await self.end_input()
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_GRACE_SECONDS):
                    await process.wait()
        kill_group(process.pid)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_GRACE_SECONDS):
                await process.wait()
        if self._stderr_task is not None:
            self._stderr_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._stderr_task
        if self._exit_task is not None and not self._exit_task.done():
            self._exit_task.cancel()
        await self.clean_up()

    def is_ready(self) -> bool:
        return self.process is not None and self.process.returncode is None


def kill_group(pid: int) -> None:
    """SIGKILL the group `pid` leads (our process started it with a session of its own, so
    the group is its pid and never ours)."""
    if pid == os.getpgid(0):  # pragma: no cover - start_new_session makes this impossible
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
