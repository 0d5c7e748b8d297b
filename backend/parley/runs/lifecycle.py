"""How a delegation and its child run change state together, inside the caller's transaction.

`move` is the one function that writes a delegation's state (the rules decide the move), and
`end_run` the one that ends a run: ending a delegated run closes its thread with the matching
state, and closing a thread ends its run, in the same transaction, so neither is ever left
open behind the other.

The statements are the stores' (`runs.store`, `runs.store_delegations`, `questions.store`).

Lock order, shared with `runs.messages`: the thread's conversation row first, then the
delegation row, then question rows, then run rows, in every transaction that locks more than
the delegation row alone: a write into the thread, a close, the sweeps, and a claim too (it
finds its delegation by locking the conversation SKIP LOCKED). A second update of a
delegation row in one transaction (a lapsed claim released, then claimed) re-checks its
foreign keys, a share lock on the conversation: taken before it, it cannot deadlock.
"""

from __future__ import annotations

import asyncpg

from parley.questions import store as questions
from parley.runs import store as runs
from parley.runs import store_delegations as delegations
from parley.runs.rules import (
    OPEN,
    RUN_STATUS_FOR,
    THREAD_EVENT_FOR_RUN,
    DelegationStatus,
    Event,
    advance,
)
from parley.runs.store_delegations import DelegationRecord


async def move(
    conn: asyncpg.Connection,
    thread: DelegationRecord,
    event: Event,
    *,
    result: str | None = None,
    claimer: str | None = None,
    lease_s: float = 0.0,
) -> DelegationRecord:
    """Move a (row-locked) delegation by `event`; a closed thread also ends its child run
    with the matching status and times out the questions still open in it."""
    status = advance(thread.status, event)
    moved = await delegations.move(
        conn, thread, event, status, result=result, claimer=claimer, lease_s=lease_s
    )
    if event is Event.claim:  # the child is heard from as it takes the work
        await runs.heard(conn, user_id=moved.user_id, run_id=moved.child_run_id)
    if status not in OPEN:
        await questions.time_out_open(conn, user_id=moved.user_id, conversation_id=moved.thread_id)
        await _end_run_row(
            conn,
            user_id=moved.user_id,
            run_id=moved.child_run_id,
            status=RUN_STATUS_FOR[status],
            note=result,
        )
    return moved


async def _end_run_row(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    run_id: int | None,
    status: str,
    note: str | None,
    error: str | None = None,
) -> None:
    """End the run if it is still open (a no-op for one already ended)."""
    if run_id is None:
        return
    await runs.end(conn, user_id=user_id, run_id=run_id, status=status, note=note, error=error)


async def end_run(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    run_id: int,
    conversation_id: int | None,
    status: str,
    note: str | None,
    error: str | None = None,
) -> None:
    """End a run (whoever ends it: its agent, the person, the silence sweep). A delegated run
    closes its thread with it: the thread's state is its child run's."""
    thread = await delegations.lock_of_run(conn, user_id=user_id, run_id=run_id)
    if conversation_id is not None:
        await questions.time_out_open(conn, user_id=user_id, conversation_id=conversation_id)
    await _end_run_row(conn, user_id=user_id, run_id=run_id, status=status, note=note, error=error)
    if thread is not None and thread.status in OPEN:
        await move(conn, thread, THREAD_EVENT_FOR_RUN[status], result=note)


async def acknowledge(conn: asyncpg.Connection, thread: DelegationRecord) -> None:
    """The child acted in its thread: the claim reached it and no longer lapses."""
    if thread.status == DelegationStatus.claimed and thread.acked_at is None:
        await delegations.acknowledge(conn, user_id=thread.user_id, thread_id=thread.thread_id)
