"""Killing a Claude Code process with everything it started (commands, their children)."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil

# How long `kill_tree` waits for what it signalled to be gone.
GONE_SECONDS = 3.0


def tree(pid: int) -> list[psutil.Process]:
    """The process and its descendants, parents first; empty if it is gone."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


# Not PARLEY_*: nothing of the server's own settings reaches the process.
TAG = "WORK_SESSION_TAG"


def tagged(tag: str) -> list[psutil.Process]:
    """Every process whose environment carries the session's tag: the ones a command left
    running in the background too, which its exiting shell handed to init."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if proc.environ().get(TAG) == tag:
                found.append(proc)
    return found


def kill_tree(
    pid: int | None,
    tag: str | None = None,
    *,
    spare: int | None = None,
    wait: bool = True,
    also: list[psutil.Process] | None = None,
) -> list[psutil.Process]:
    """SIGKILL the process's own group (it leads one: it was started in a session of its
    own), its descendants and every process carrying the session's tag (a command that made
    a group of its own). No other group is ever signalled, least of all the server's.
    With `wait`, until each is gone (at most `GONE_SECONDS`), see `wait_gone`; `spare` is
    a child of ours whose exit status belongs to the event loop (the transport's process).
    `also`: processes signalled before (`kill_tree(wait=False)`) to wait for as well.
    Returns the processes that were signalled. Blocking (reads /proc): call it off the event
    loop."""
    procs = tree(pid) if pid else []
    if tag:
        known = {p.pid for p in procs}
        procs += [p for p in tagged(tag) if p.pid not in known]
    known = {p.pid for p in procs}
    procs += [p for p in also or [] if p.pid not in known]
    if pid:
        kill_group(pid)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    if wait:
        wait_gone(procs, spare=spare)
    return procs


def kill_group(pid: int) -> None:
    """SIGKILL the group `pid` leads, if it leads one (and it is not the server's): claude and
    every command it started in its own group, at once (a few system calls: fine on the event
    loop). `kill_tree` finds the rest."""
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid and pid != os.getpgid(0):
            os.killpg(pid, signal.SIGKILL)


def wait_gone(
    procs: list[psutil.Process], *, spare: int | None = None, seconds: float = GONE_SECONDS
) -> None:
    """Until every process is gone or a zombie (dead, its exit status not yet collected),
    at most `seconds`. Never `waitpid` on `spare`: the event loop collects that child's
    status (asyncio's child watcher, uvloop's SIGCHLD handler), and a status taken from it
    leaves the transport waiting for an exit it will never see (`psutil.wait_procs` did
    that: End took the transport's two 3 s grace periods). A zombie that is some other
    child of ours (an orphaned command adopted by a server that runs as PID 1, in a
    container) is collected here: nothing else would."""
    me = os.getpid()
    deadline = time.monotonic() + seconds
    left = list(procs)
    while left:
        alive = []
        for proc in left:
            try:
                if not proc.is_running():  # gone (or its pid already reused)
                    continue
                if proc.status() == psutil.STATUS_ZOMBIE:
                    if proc.pid != spare and proc.ppid() == me:
                        with contextlib.suppress(ChildProcessError):
                            os.waitpid(proc.pid, os.WNOHANG)
                    continue
            except psutil.NoSuchProcess:
                continue
            except psutil.Error:
                pass  # cannot tell: taken as alive until the deadline
            alive.append(proc)
        left = alive
        if not left or time.monotonic() >= deadline:
            return
        time.sleep(0.01)


def is_claude(pid: int) -> bool:
    """A pid recorded by a dead server may have been reused: only kill what is still a
    Claude Code process."""
    try:
        proc = psutil.Process(pid)
        text = " ".join([proc.name(), *proc.cmdline()])
    except psutil.Error:
        return False
    return "claude" in text
