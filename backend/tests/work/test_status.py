"""A work session's status machine on its own: every move it allows and every one it refuses."""

from __future__ import annotations

import pytest

from parley.work.status import IllegalMove, WorkStatus, move

pytestmark = pytest.mark.unit

S = WorkStatus
# What the conversation may show next, from each status: the whole table, written out.
ALLOWED = {
    S.starting: {S.idle, S.working, S.waiting_permission, S.ended},
    S.idle: {S.idle, S.working, S.ended},
    S.working: {S.working, S.idle, S.waiting_permission, S.ended},
    S.waiting_permission: {S.waiting_permission, S.working, S.idle, S.ended},
    S.ended: {S.ended},
}


@pytest.mark.parametrize("current", list(WorkStatus), ids=str)
def test_from_each_status_exactly_these_moves(current: WorkStatus) -> None:
    for to in WorkStatus:
        if to in ALLOWED[current]:
            assert move(current, to) is to
        else:
            with pytest.raises(IllegalMove, match=f"from {current} to {to}"):
                move(current, to)


def test_every_status_can_end_and_nothing_leaves_ended() -> None:
    assert all(move(status, S.ended) is S.ended for status in WorkStatus)
    assert [to for to in WorkStatus if to in ALLOWED[S.ended]] == [S.ended]


def test_a_permission_is_only_waited_for_while_working_or_starting() -> None:
    """A resumed session asks from `starting`; a live one only mid-prompt, never when idle."""
    came_from = {s for s in WorkStatus if S.waiting_permission in ALLOWED[s]}
    assert came_from == {S.starting, S.working, S.waiting_permission}


def test_a_prompt_cycle_and_an_answered_permission_are_legal_paths() -> None:
    path = [S.starting, S.idle, S.working, S.waiting_permission, S.working, S.idle, S.ended]
    status = path[0]
    for to in path[1:]:
        status = move(status, to)
    assert status is S.ended


def test_a_late_message_after_the_end_is_refused_not_applied() -> None:
    """What a process being killed still prints must not revive the session."""
    for late in (S.idle, S.working, S.waiting_permission, S.starting):
        with pytest.raises(IllegalMove):
            move(S.ended, late)
