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


TAG = "PARLEY_WORK_SESSION"


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
    """SIGKILL the process, its descendants, every process carrying the session's tag, and
    the process groups they lead. Returns the pids that were signalled. Blocking (reads
    /proc): call it off the event loop."""
    procs = tree(pid) if pid else []
    if tag:
        known = {p.pid for p in procs}
        procs += [p for p in tagged(tag) if p.pid not in known]
    own_group = os.getpgid(0)
    groups: set[int] = set()
    for proc in procs:
        with contextlib.suppress(psutil.Error, OSError):
            group = os.getpgid(proc.pid)
            if group != own_group:
                groups.add(group)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
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
