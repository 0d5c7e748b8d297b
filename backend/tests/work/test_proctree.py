"""Killing a session's tree leaves the exit of the process Parley started to its event loop:
collecting it elsewhere left the transport waiting for an exit it never saw (End took the
transport's two grace periods, 6 s, on uvloop)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import psutil

from parley.work import proctree


def started(*argv: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(list(argv), start_new_session=True)


def test_the_spared_child_is_waited_for_but_its_exit_is_left_to_its_owner() -> None:
    child = started("sleep", "60")
    proctree.kill_tree(child.pid, spare=child.pid)
    # Dead (a zombie until its owner collects it), and its status still there to collect.
    assert psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE
    pid, status = os.waitpid(child.pid, 0)
    assert pid == child.pid and os.WIFSIGNALED(status)
    assert os.WTERMSIG(status) == signal.SIGKILL


def test_a_dead_child_no_event_loop_owns_is_collected() -> None:
    """An orphaned command handed to a server running as PID 1 (a container without an
    init): nothing else would ever collect it."""
    child = started(sys.executable, "-c", "import time; time.sleep(60)")
    proctree.kill_tree(child.pid)
    assert not psutil.pid_exists(child.pid)
    child.returncode = -signal.SIGKILL  # collected already: Popen must not wait for it


def test_the_whole_group_goes_and_nothing_outside_it() -> None:
    leader = started("sh", "-c", "sleep 60 & sleep 60 & wait")
    bystander = started("sleep", "60")
    try:
        children = psutil.Process(leader.pid).children(recursive=True)
        while len(children) < 2:  # the shell has started its two sleeps
            children = psutil.Process(leader.pid).children(recursive=True)
        signalled = proctree.kill_tree(leader.pid, spare=leader.pid)
        assert {p.pid for p in signalled} == {leader.pid, *(c.pid for c in children)}
        assert all(not c.is_running() or c.status() == psutil.STATUS_ZOMBIE for c in children)
        assert leader.wait(timeout=10) == -signal.SIGKILL
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()
