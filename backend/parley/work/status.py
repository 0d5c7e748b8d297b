"""A work session's status, as the conversation shows it, and the one function that moves it."""

from __future__ import annotations

from enum import StrEnum


class WorkStatus(StrEnum):
    starting = "starting"
    idle = "idle"
    working = "working"
    waiting_permission = "waiting_permission"
    ended = "ended"


_NEXT: dict[WorkStatus, frozenset[WorkStatus]] = {
    WorkStatus.starting: frozenset(
        {WorkStatus.idle, WorkStatus.working, WorkStatus.waiting_permission, WorkStatus.ended}
    ),
    WorkStatus.idle: frozenset({WorkStatus.idle, WorkStatus.working, WorkStatus.ended}),
    WorkStatus.working: frozenset(
        {WorkStatus.working, WorkStatus.idle, WorkStatus.waiting_permission, WorkStatus.ended}
    ),
    WorkStatus.waiting_permission: frozenset(
        {
            WorkStatus.waiting_permission,
            WorkStatus.working,
            WorkStatus.idle,
            WorkStatus.ended,
        }
    ),
    WorkStatus.ended: frozenset({WorkStatus.ended}),
}


class IllegalMove(Exception):
    pass


def move(current: WorkStatus, to: WorkStatus) -> WorkStatus:
    """The status after `to` is asked for: an ended session stays ended (a late message from
    a process being killed cannot bring it back), and idle never jumps to waiting for a
    permission without working first."""
    if to not in _NEXT[current]:
        raise IllegalMove(f"a work session cannot go from {current} to {to}")
    return to
