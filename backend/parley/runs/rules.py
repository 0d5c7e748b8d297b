"""Who may do what to a run and a delegation thread, and how a delegation's state moves.

Every decision is a pure function of facts the service read under the rows' locks (the
caller, the run's agent, the thread's two agents and state), so the rules are read and
tested in one place and no transport (REST, MCP, stdio) can skip one. The database still
refuses writes into finished runs and closed threads on its own (`parley_writable`), which
is what makes a check here and the write that follows it one decision under concurrency.

A delegation moves only through `advance`: `pending → claimed` when one process of the
child agent takes it, back to `pending` when that claim lapses unacknowledged, and to one
closed state (`completed | failed | escalated` by the child, `cancelled`, `timed_out`).
The thread's state follows its child run: ending that run ends the thread with the
matching state (`THREAD_EVENT_FOR_RUN`), and closing the thread ends the run
(`RUN_STATUS_FOR`), always in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from parley.auth import Caller
from parley.errors import Forbidden, InvalidInput, ParleyError


class Conflict(ParleyError):
    status = 409
    code = "conflict"


class DelegationStatus(StrEnum):
    pending = "pending"
    claimed = "claimed"
    completed = "completed"
    failed = "failed"
    escalated = "escalated"
    cancelled = "cancelled"
    timed_out = "timed_out"


OPEN = frozenset({DelegationStatus.pending, DelegationStatus.claimed})


class Event(StrEnum):
    claim = "claim"  # a process of the child agent takes it
    release = "release"  # its claim lapsed unacknowledged: open to every process again
    complete = "complete"
    fail = "fail"
    escalate = "escalate"
    cancel = "cancel"
    time_out = "time_out"


_MOVES: dict[tuple[DelegationStatus, Event], DelegationStatus] = {
    (DelegationStatus.pending, Event.claim): DelegationStatus.claimed,
    (DelegationStatus.claimed, Event.release): DelegationStatus.pending,
    (DelegationStatus.claimed, Event.complete): DelegationStatus.completed,
    (DelegationStatus.claimed, Event.fail): DelegationStatus.failed,
    (DelegationStatus.claimed, Event.escalate): DelegationStatus.escalated,
    (DelegationStatus.pending, Event.cancel): DelegationStatus.cancelled,
    (DelegationStatus.claimed, Event.cancel): DelegationStatus.cancelled,
    (DelegationStatus.pending, Event.time_out): DelegationStatus.timed_out,
    (DelegationStatus.claimed, Event.time_out): DelegationStatus.timed_out,
}

# The child run's ending for each closed thread state, and the thread event for each ending
# of the child run: the two never disagree.
RUN_STATUS_FOR: dict[DelegationStatus, str] = {
    DelegationStatus.completed: "completed",
    DelegationStatus.failed: "failed",
    DelegationStatus.escalated: "failed",
    DelegationStatus.cancelled: "cancelled",
    DelegationStatus.timed_out: "timed_out",
}
THREAD_EVENT_FOR_RUN: dict[str, Event] = {
    "completed": Event.complete,
    "failed": Event.fail,
    "cancelled": Event.cancel,
    "timed_out": Event.time_out,
}


def advance(status: str, event: Event) -> DelegationStatus:
    """The delegation's next state; a move its state does not allow is a 409 saying why."""
    current = DelegationStatus(status)
    moved = _MOVES.get((current, event))
    if moved is not None:
        return moved
    if current not in OPEN:
        raise Conflict(f"The thread is closed ({current.value})", code="run_finished")
    if current is DelegationStatus.pending:
        raise Conflict(
            "Nobody has claimed this delegation yet (next_delegation claims it); it can only"
            " be cancelled or time out",
            code="not_claimed",
        )
    raise Conflict(f"A {current.value} delegation cannot {event.value}", code="conflict")


@dataclass(frozen=True, slots=True)
class ThreadFacts:
    parent_agent: str
    child_agent: str
    status: str


def _not_your_run(what: str) -> Forbidden:
    return Forbidden(what, code="not_your_run")


def check_run_owner(caller: Caller, *, run_agent: str, action: str) -> None:
    """Status and endings of a run come from its own agent (or the person): not from
    another agent, not from the parent of a delegated run (it cancels the thread)."""
    if caller.agent is not None and caller.agent != run_agent:
        raise _not_your_run(f"Only {run_agent} (or the person) may {action} this run")


def check_finish(
    caller: Caller, *, run_agent: str, thread: ThreadFacts | None, status: str
) -> None:
    """Who ends a run; a delegated run also needs its thread to allow that ending."""
    check_run_owner(caller, run_agent=run_agent, action="finish")
    if thread is not None:
        advance(thread.status, THREAD_EVENT_FOR_RUN[status])


def check_post(
    caller: Caller, *, run_agent: str | None, thread: ThreadFacts | None, kind: str
) -> None:
    """Writing a message of `kind` into a run's or a thread's conversation.

    A thread takes messages from its two agents and the person; the child only once it has
    claimed the thread; questions only from the child (they hold the child's run); an
    agent's `answer` only from the parent, to the child's open question (`check_answer`).
    A run takes messages from its own agent and the person. An agent's `answer` anywhere
    else is refused: agents never answer for the person.
    """
    agent = caller.agent
    if agent is None:
        return
    if thread is not None:
        if agent not in (thread.parent_agent, thread.child_agent):
            raise _not_your_run(
                f"This thread is between {thread.parent_agent} and {thread.child_agent}"
            )
        if agent == thread.child_agent and thread.status == DelegationStatus.pending:
            advance(thread.status, Event.complete)  # raises not_claimed
        if kind == "question" and agent != thread.child_agent:
            raise _not_your_run(
                f"Only {thread.child_agent} asks questions in this thread (they hold its run);"
                " write a message instead"
            )
        if kind == "answer" and agent != thread.parent_agent:
            raise Forbidden(
                f"Only {thread.parent_agent} (or the person) answers in this thread",
                code="not_your_question",
            )
        return
    if run_agent is not None and agent != run_agent:
        raise _not_your_run(f"Run belongs to agent {run_agent}")
    if kind == "answer":
        raise Forbidden(
            "Agents do not answer the person's questions; write kind=message",
            code="not_your_question",
        )


def check_answer(
    caller: Caller, *, thread: ThreadFacts | None, asked_by: str | None, status: str | None
) -> None:
    """An agent's answer (`answer_child`, or `kind=answer` with `reply_to`): only the parent,
    only to its child's question, never to one it asked itself (a thread it delegated to
    itself: parent and child are one agent, so the answer must come from the person), only
    while it is open. Refused, nothing is stored."""
    if caller.agent is None:
        return
    if thread is None or caller.agent != thread.parent_agent:
        raise Forbidden("Agents do not answer the person's questions", code="not_your_question")
    if status is None:
        raise InvalidInput(
            "reply_to is not a question of this thread", details=[{"field": "reply_to"}]
        )
    if asked_by == caller.agent:  # a thread an agent delegated to itself: the person answers
        raise Forbidden(
            "An agent does not answer a question it asked itself; the person answers it",
            code="not_your_question",
        )
    if asked_by != thread.child_agent:
        raise Forbidden(
            f"Only questions {thread.child_agent} asked are yours to answer",
            code="not_your_question",
        )
    if status == "answered":
        raise Conflict("That question is already answered", code="already_answered")
    if status != "open":
        raise Conflict("That question is closed (it timed out)", code="question_closed")


def check_close(caller: Caller, *, thread: ThreadFacts, event: Event) -> DelegationStatus:
    """Only the child completes, fails or escalates (once it has claimed the thread); the
    parent or the person cancels. Returns the state the thread moves to."""
    if event is Event.cancel:
        if caller.agent not in (None, thread.parent_agent):
            raise Forbidden("Only the parent agent or the person cancels", code="not_your_thread")
    elif caller.agent != thread.child_agent:
        raise Forbidden(f"Only {thread.child_agent} ends this thread", code="not_your_thread")
    return advance(thread.status, event)


def check_acknowledge(caller: Caller, *, thread: ThreadFacts) -> None:
    """Only the child acknowledges its claim, and only a claimed thread."""
    if caller.agent != thread.child_agent:
        raise Forbidden(f"Only {thread.child_agent} takes up this thread", code="not_your_thread")
    if thread.status != DelegationStatus.claimed:
        advance(thread.status, Event.complete)  # says why: not_claimed, or closed


def can_see(caller: Caller, thread: ThreadFacts) -> bool:
    """The person and the thread's two agents; anyone else gets a 404."""
    return caller.agent in (None, thread.parent_agent, thread.child_agent)
