"""The delegation rules on their own: who may do what to a run and a thread, and every move of
a delegation's state (no database)."""

from __future__ import annotations

import pytest

from parley.auth import Caller
from parley.errors import Forbidden, InvalidInput, ParleyError
from parley.runs import rules
from parley.runs.rules import Conflict, DelegationStatus, Event, ThreadFacts

pytestmark = pytest.mark.unit

PERSON = Caller("alice")
PARENT = Caller("alice", "architect")
CHILD = Caller("alice", "coder")
OTHER = Caller("alice", "intruder")


def thread(status: str = "claimed") -> ThreadFacts:
    return ThreadFacts(parent_agent="architect", child_agent="coder", status=status)


def code(exc: pytest.ExceptionInfo[ParleyError]) -> tuple[int, str]:
    return exc.value.status, exc.value.code


def test_every_allowed_move() -> None:
    moves = {
        ("pending", Event.claim): "claimed",
        ("claimed", Event.release): "pending",
        ("claimed", Event.complete): "completed",
        ("claimed", Event.fail): "failed",
        ("claimed", Event.escalate): "escalated",
        ("pending", Event.cancel): "cancelled",
        ("claimed", Event.cancel): "cancelled",
        ("pending", Event.time_out): "timed_out",
        ("claimed", Event.time_out): "timed_out",
    }
    for (status, event), moved in moves.items():
        assert rules.advance(status, event) == moved
    refused = [(s, e) for s in DelegationStatus for e in Event if (s.value, e) not in moves]
    assert len(refused) == 7 * 7 - len(moves)
    for status, event in refused:
        with pytest.raises(Conflict):
            rules.advance(status, event)


def test_refused_moves_say_why() -> None:
    with pytest.raises(Conflict) as unclaimed:
        rules.advance("pending", Event.complete)
    assert code(unclaimed) == (409, "not_claimed")
    for closed in ("completed", "failed", "escalated", "cancelled", "timed_out"):
        with pytest.raises(Conflict) as finished:
            rules.advance(closed, Event.cancel)
        assert code(finished) == (409, "run_finished")
    with pytest.raises(Conflict):
        rules.advance("claimed", Event.claim)  # a claim is never taken twice


def test_a_thread_and_its_child_run_end_alike() -> None:
    for run_status, event in rules.THREAD_EVENT_FOR_RUN.items():
        closed = rules.advance("claimed", event)
        assert rules.RUN_STATUS_FOR[closed] == run_status


def test_only_a_runs_own_agent_reports_on_and_finishes_it() -> None:
    rules.check_run_owner(CHILD, run_agent="coder", action="finish")
    rules.check_run_owner(PERSON, run_agent="coder", action="finish")
    for who in (PARENT, OTHER):
        with pytest.raises(Forbidden) as refused:
            rules.check_run_owner(who, run_agent="coder", action="finish")
        assert code(refused) == (403, "not_your_run")


def test_finishing_a_delegated_run_needs_its_thread_to_allow_it() -> None:
    rules.check_finish(CHILD, run_agent="coder", thread=thread(), status="completed")
    rules.check_finish(PERSON, run_agent="coder", thread=thread("pending"), status="cancelled")
    with pytest.raises(Conflict) as unclaimed:
        rules.check_finish(CHILD, run_agent="coder", thread=thread("pending"), status="completed")
    assert code(unclaimed) == (409, "not_claimed")
    with pytest.raises(Forbidden):
        rules.check_finish(PARENT, run_agent="coder", thread=thread(), status="cancelled")


def test_who_writes_what_into_a_thread() -> None:
    for who in (PERSON, PARENT, CHILD):
        rules.check_post(who, run_agent="coder", thread=thread(), kind="message")
    rules.check_post(CHILD, run_agent="coder", thread=thread(), kind="question")
    rules.check_post(PARENT, run_agent="coder", thread=thread(), kind="answer")
    rules.check_post(PARENT, run_agent="coder", thread=thread("pending"), kind="message")
    refusals = [
        (OTHER, thread(), "message", (403, "not_your_run")),
        (PARENT, thread(), "question", (403, "not_your_run")),  # it would hold the child's run
        (CHILD, thread(), "answer", (403, "not_your_question")),
        (CHILD, thread("pending"), "message", (409, "not_claimed")),
        (CHILD, thread("pending"), "status", (409, "not_claimed")),
    ]
    for who, facts, kind, expected in refusals:
        with pytest.raises(ParleyError) as refused:
            rules.check_post(who, run_agent="coder", thread=facts, kind=kind)
        assert code(refused) == expected, (who, facts, kind)


def test_who_writes_what_into_a_run() -> None:
    rules.check_post(CHILD, run_agent="coder", thread=None, kind="question")
    rules.check_post(PERSON, run_agent="coder", thread=None, kind="answer")
    with pytest.raises(Forbidden) as other:
        rules.check_post(OTHER, run_agent="coder", thread=None, kind="message")
    assert code(other) == (403, "not_your_run")
    for where in ("coder", None):  # its own run, or the inbox: agents never answer there
        with pytest.raises(Forbidden) as answer:
            rules.check_post(CHILD, run_agent=where, thread=None, kind="answer")
        assert code(answer) == (403, "not_your_question")


def test_an_agents_answer_takes_only_its_childs_open_question() -> None:
    rules.check_answer(PARENT, thread=thread(), asked_by="coder", status="open")
    rules.check_answer(PERSON, thread=None, asked_by="planner", status="answered")  # not ours
    refusals = [
        (CHILD, thread(), "coder", "open", (403, "not_your_question")),  # its own question
        (PARENT, None, "coder", "open", (403, "not_your_question")),
        (PARENT, thread(), "architect", "open", (403, "not_your_question")),
        (PARENT, thread(), "coder", "answered", (409, "already_answered")),
        (PARENT, thread(), "coder", "timed_out", (409, "question_closed")),
    ]
    for who, facts, asked_by, status, expected in refusals:
        with pytest.raises(ParleyError) as refused:
            rules.check_answer(who, thread=facts, asked_by=asked_by, status=status)
        assert code(refused) == expected
    with pytest.raises(InvalidInput):
        rules.check_answer(PARENT, thread=thread(), asked_by=None, status=None)


def test_who_closes_a_thread() -> None:
    assert rules.check_close(CHILD, thread=thread(), event=Event.complete) == "completed"
    assert rules.check_close(PARENT, thread=thread(), event=Event.cancel) == "cancelled"
    assert rules.check_close(PERSON, thread=thread("pending"), event=Event.cancel) == "cancelled"
    refusals = [
        (PARENT, thread(), Event.complete, (403, "not_your_thread")),
        (CHILD, thread(), Event.cancel, (403, "not_your_thread")),
        (OTHER, thread(), Event.cancel, (403, "not_your_thread")),
        (CHILD, thread("pending"), Event.complete, (409, "not_claimed")),
        (CHILD, thread("completed"), Event.fail, (409, "run_finished")),
    ]
    for who, facts, event, expected in refusals:
        with pytest.raises(ParleyError) as refused:
            rules.check_close(who, thread=facts, event=event)
        assert code(refused) == expected


def test_acknowledging_and_seeing() -> None:
    rules.check_acknowledge(CHILD, thread=thread())
    with pytest.raises(Forbidden):
        rules.check_acknowledge(PARENT, thread=thread())
    with pytest.raises(Conflict):
        rules.check_acknowledge(CHILD, thread=thread("pending"))
    assert [rules.can_see(c, thread()) for c in (PERSON, PARENT, CHILD, OTHER)] == [
        True,
        True,
        True,
        False,
    ]


CLOSED = [s for s in DelegationStatus if s not in rules.OPEN]


@pytest.mark.parametrize("closed", CLOSED, ids=str)
def test_a_closed_thread_refuses_every_event_as_finished(closed: DelegationStatus) -> None:
    for event in Event:
        with pytest.raises(Conflict) as refused:
            rules.advance(closed.value, event)
        assert code(refused) == (409, "run_finished"), event
        assert closed.value in refused.value.message


def test_an_escalation_fails_the_child_run_but_a_failed_run_never_reads_as_escalated() -> None:
    assert rules.RUN_STATUS_FOR[DelegationStatus.escalated] == "failed"
    assert rules.advance("claimed", rules.THREAD_EVENT_FOR_RUN["failed"]) == "failed"
    # Every closed state has its run ending, and every run ending its event.
    assert set(rules.RUN_STATUS_FOR) == set(CLOSED)
    assert set(rules.THREAD_EVENT_FOR_RUN) == set(rules.RUN_STATUS_FOR.values())


def test_an_unknown_state_is_not_a_state() -> None:
    with pytest.raises(ValueError):
        rules.advance("paused", Event.cancel)


@pytest.mark.parametrize("kind", ["message", "status", "question", "answer", "completion"])
def test_the_person_writes_any_kind_anywhere(kind: str) -> None:
    for facts in (thread(), thread("pending"), None):
        rules.check_post(PERSON, run_agent="coder", thread=facts, kind=kind)


def test_a_delegated_run_ends_only_as_its_thread_allows() -> None:
    for status in ("completed", "failed", "cancelled", "timed_out"):
        rules.check_finish(CHILD, run_agent="coder", thread=thread(), status=status)
        with pytest.raises(Conflict) as closed:
            rules.check_finish(CHILD, run_agent="coder", thread=thread("failed"), status=status)
        assert code(closed) == (409, "run_finished")
    rules.check_finish(CHILD, run_agent="coder", thread=None, status="completed")  # not delegated


def test_acknowledging_a_closed_thread_says_it_is_closed() -> None:
    with pytest.raises(Conflict) as closed:
        rules.check_acknowledge(CHILD, thread=thread("cancelled"))
    assert code(closed) == (409, "run_finished")
    with pytest.raises(Forbidden):
        rules.check_acknowledge(PERSON, thread=thread())  # the child's own step
