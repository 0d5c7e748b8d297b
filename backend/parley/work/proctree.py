"""Killing a Claude Code process with everything it started (commands, their children)."""

from __future__ import annotations

import contextlib
import os
import signal

import psutil


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


def kill_tree(pid: int | None, tag: str | None = None) -> list[int]:
    """SIGKILL the process's own group (it leads one: it was started in a session of its
    own), its descendants and every process carrying the session's tag (a command that made
    a group of its own). No other group is ever signalled, least of all the server's.
    Returns the pids that were signalled. Blocking (reads /proc): call it off the event
    loop."""
    procs = tree(pid) if pid else []
    if tag:
        known = {p.pid for p in procs}
        procs += [p for p in tagged(tag) if p.pid not in known]
    if pid:
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid and pid != os.getpgid(0):
                os.killpg(pid, signal.SIGKILL)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(procs, timeout=3)
    return [p.pid for p in procs]


def is_claude(pid: int) -> bool:
    """A pid recorded by a dead server may have been reused: only kill what is still a
    Claude Code process."""
    try:
        proc = psutil.Process(pid)
        text = " ".join([proc.name(), *proc.cmdline()])
    except psutil.Error:
        return False
    return "claude" in text
