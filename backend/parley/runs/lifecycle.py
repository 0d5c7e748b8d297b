"""How a delegation and its child run change state together, inside the caller's transaction.

`move` is the one function that writes a delegation's state (the rules decide the move), and
`end_run` the one that ends a run: ending a delegated run closes its thread with the matching
state, and closing a thread ends its run, in the same transaction, so neither is ever left
open behind the other.

Lock order, shared with `runs.messages`: the thread's conversation row first, then the
delegation row, then question rows, then run rows, in every transaction that locks more than
the delegation row alone: a write into the thread, a close, the sweeps, and a claim too (it
finds its delegation by locking the conversation SKIP LOCKED). A second update of a
delegation row in one transaction (a lapsed claim released, then claimed) re-checks its
foreign keys, a share lock on the conversation: taken before it, it cannot deadlock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from parley.models import Delegation, columns, from_row
from parley.runs.rules import (
    OPEN,
    RUN_STATUS_FOR,
    THREAD_EVENT_FOR_RUN,
    DelegationStatus,
    Event,
    ThreadFacts,
    advance,
)
from parley.runs.schemas import DelegationShown


class DelegationRecord(DelegationShown):
    """A row of `delegations`, validated by column name: the columns the API shows plus the
    claim's lease, which stays inside."""

    lease_until: datetime | None
    user_id: str

    @property
    def facts(self) -> ThreadFacts:
        return ThreadFacts(self.parent_agent, self.child_agent, self.status)


COLUMNS = columns(Delegation, DelegationRecord)


def record(row: Any) -> DelegationRecord:
    return from_row(DelegationRecord, row)


async def lock_thread(
    conn: asyncpg.Connection, *, user_id: str, thread_id: int
) -> DelegationRecord | None:
    """The delegation whose thread this conversation is (row-locked), if it is one."""
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM delegations WHERE user_id = $2 AND thread_id = $1 FOR UPDATE",
        thread_id,
        user_id,
    )
    return record(row) if row is not None else None


def _move_sql(event: Event, status: DelegationStatus) -> tuple[str, int]:
    """The UPDATE that moves a delegation by `event` into `status`, and how many of the
    parameters (thread, user, status, result, claimer, lease seconds) it takes. Put together
    here rather than with CASE in SQL: Citus refuses the clock (`now()`) inside a CASE of an
    UPDATE's SET."""
    sets = ["status = $3", "result = coalesce($4, result)"]
    taken = 4
    if event is Event.claim:
        sets += [
            "claimed_at = now()",
            "claimer = $5",
            "lease_until = now() + make_interval(secs => $6)",
            "acked_at = NULL",
        ]
        taken = 6
    elif event is Event.release:
        sets += ["claimer = NULL", "lease_until = NULL", "acked_at = NULL"]
    sets.append("closed_at = NULL" if status in OPEN else "closed_at = now()")
    sql = (
        f"UPDATE delegations SET {', '.join(sets)}"
        f" WHERE user_id = $2 AND thread_id = $1 RETURNING {COLUMNS}"
    )
    return sql, taken


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
    sql, taken = _move_sql(event, status)
    params = (thread.thread_id, thread.user_id, status.value, result, claimer, lease_s)
    row = await conn.fetchrow(sql, *params[:taken])
    moved = record(row)
    if event is Event.claim:  # the child is heard from as it takes the work
        await conn.execute(
            "UPDATE agent_runs SET last_activity_at = now() WHERE user_id = $2 AND id = $1",
            moved.child_run_id,
            moved.user_id,
        )
    if status not in OPEN:
        await close_questions(conn, user_id=moved.user_id, conversation_id=moved.thread_id)
        await _end_run_row(
            conn,
            user_id=moved.user_id,
            run_id=moved.child_run_id,
            status=RUN_STATUS_FOR[status],
            note=result,
        )
    return moved


async def close_questions(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    await conn.execute(
        "UPDATE questions SET status = 'timed_out', closed_at = now()"
        " WHERE user_id = $2 AND conversation_id = $1 AND status = 'open'",
        conversation_id,
        user_id,
    )


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
    await conn.execute(
        "UPDATE agent_runs SET status = $2::text::run_status, summary = coalesce($3, summary),"
        " ended_at = now(), last_activity_at = now(), waiting_until = NULL,"
        " error = CASE WHEN $2::text IN ('failed', 'timed_out') THEN coalesce($4, $3) END,"
        " progress = CASE WHEN $2::text = 'completed' THEN 100 ELSE progress END"
        " WHERE user_id = $5 AND id = $1 AND status IN ('running', 'waiting_input')",
        run_id,
        status,
        note,
        error,
        user_id,
    )


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
    thread = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM delegations WHERE user_id = $2 AND child_run_id = $1 FOR UPDATE",
        run_id,
        user_id,
    )
    if conversation_id is not None:
        await close_questions(conn, user_id=user_id, conversation_id=conversation_id)
    await _end_run_row(conn, user_id=user_id, run_id=run_id, status=status, note=note, error=error)
    if thread is not None and thread["status"] in OPEN:
        await move(conn, record(thread), THREAD_EVENT_FOR_RUN[status], result=note)


async def acknowledge(conn: asyncpg.Connection, thread: DelegationRecord) -> None:
    """The child acted in its thread: the claim reached it and no longer lapses."""
    if thread.status == DelegationStatus.claimed and thread.acked_at is None:
        await conn.execute(
            "UPDATE delegations SET acked_at = now(), lease_until = NULL"
            " WHERE user_id = $2 AND thread_id = $1",
            thread.thread_id,
            thread.user_id,
        )
