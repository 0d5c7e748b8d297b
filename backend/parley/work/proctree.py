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


def kill_tree(pid: int) -> list[int]:
    """SIGKILL the process, its descendants and the process groups they lead (a command run
    in the background may have left its parent's tree but not its group). Returns the pids
    that were signalled. Blocking (reads /proc): call it off the event loop."""
    procs = tree(pid)
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
