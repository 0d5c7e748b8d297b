"""The one store of `delegations`: every statement on the table is here. Each function runs
on the caller's connection, inside its transaction: which rows are locked, and in which
order (the thread's conversation first, then its delegation: `lifecycle`'s lock order), is
the services' to decide. Every statement names the owner's user id but the sweep's search
for due threads, which is everyone's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg

from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import Delegation, columns, from_row
from parley.questions import store as questions
from parley.runs.rules import OPEN, DelegationStatus, Event, ThreadFacts
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


async def insert(
    conn: asyncpg.Connection,
    *,
    thread_id: int,
    user_id: str,
    parent_run_id: int,
    child_run_id: int,
    parent_agent: str,
    child_agent: str,
    task: str,
    timeout_s: float,
) -> DelegationRecord:
    """A new delegation, `pending` until claimed or `timeout_s` from now."""
    row = await conn.fetchrow(
        "INSERT INTO delegations (thread_id, user_id, parent_run_id, child_run_id,"
        " parent_agent, child_agent, task, timeout_at) VALUES ($1, $2, $3, $4, $5, $6, $7,"
        f" now() + make_interval(secs => $8)) RETURNING {COLUMNS}",
        thread_id,
        user_id,
        parent_run_id,
        child_run_id,
        parent_agent,
        child_agent,
        task,
        timeout_s,
    )
    return record(row)


# -- reads ------------------------------------------------------------------------------


# A thread as its waiters read it, in one statement: the delegation and the child's oldest
# open question (a wait for a child reads this on every wake-up).
# Every table filtered by the owner's own parameter ($2), not by a join column: on a cluster
# that keeps the statement on the person's node (one shard's router plan).
_OPEN_QUESTION = questions.oldest_open_sql(user="$2", conversation="$1")
_THREAD = (
    f"SELECT {columns(Delegation, DelegationRecord, alias='d')}, {messages.prefixed('m')}"
    " FROM delegations d"
    f" {messages.joined('m', user='$2', message_id=_OPEN_QUESTION, left=True)}"
    " WHERE d.thread_id = $1 AND d.user_id = $2"
)


async def get_with_question(
    conn: asyncpg.Connection, *, user_id: str, thread_id: int
) -> tuple[DelegationRecord, StoredMessage | None] | None:
    row = await conn.fetchrow(_THREAD, thread_id, user_id)
    if row is None:
        return None
    question = messages.record(row, "m_") if row["m_id"] is not None else None
    return record(row), question


async def get(conn: asyncpg.Connection, *, user_id: str, thread_id: int) -> DelegationRecord | None:
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM delegations WHERE thread_id = $1 AND user_id = $2",
        thread_id,
        user_id,
    )
    return record(row) if row is not None else None


async def lock(
    conn: asyncpg.Connection, *, user_id: str, thread_id: int
) -> DelegationRecord | None:
    """The delegation whose thread this conversation is (row-locked), if it is one."""
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM delegations WHERE user_id = $2 AND thread_id = $1 FOR UPDATE",
        thread_id,
        user_id,
    )
    return record(row) if row is not None else None


async def lock_of_run(
    conn: asyncpg.Connection, *, user_id: str, run_id: int
) -> DelegationRecord | None:
    """The delegation whose child run this is (row-locked), if it is one's."""
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM delegations WHERE user_id = $2 AND child_run_id = $1 FOR UPDATE",
        run_id,
        user_id,
    )
    return record(row) if row is not None else None


async def now(conn: asyncpg.Connection) -> datetime:
    """The transaction's time, which the deadlines it compares were written in."""
    moment: datetime = await conn.fetchval("SELECT now()")
    return moment


# Open threads the sweeper has something to do with: never claimed in time, or claimed by a
# process that never acted on it within its lease.
_DUE = """
SELECT thread_id, user_id FROM delegations
WHERE (status = 'pending' AND timeout_at <= now())
   OR (status = 'claimed' AND acked_at IS NULL AND lease_until <= now())
ORDER BY thread_id LIMIT 200
"""


async def due(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Everyone's threads due for the sweep, at most 200: `thread_id`, `user_id`."""
    return await conn.fetch(_DUE)


# -- claims -----------------------------------------------------------------------------

# What a claim looks for, the claimer's own claims that never reached it (nothing acted on
# them yet) first, then the oldest open one: pending, or claimed by a process that never
# acted on it in time. Each is read again under its row lock (`_LOCK`).
_MINE = (
    "d.user_id = $1 AND d.child_agent = $2 AND d.status = 'claimed' AND d.acked_at IS NULL"
    " AND d.claimer = $3"
)
_OPEN = (
    "d.user_id = $1 AND d.child_agent = $2 AND d.timeout_at > now() AND (d.status = 'pending'"
    " OR (d.status = 'claimed' AND d.acked_at IS NULL AND d.lease_until <= now()))"
)
# The thread's conversation row is locked first, as every other writer of a thread locks it
# (`lifecycle`'s lock order): a claim that held the delegation row and then needed the
# conversation (a lapsed claim moves twice, and the second update of a row this transaction
# wrote checks its foreign keys, a share lock on the conversation) deadlocked with a message
# posted there, which holds the conversation and waits for the delegation row.
_FIND = """
SELECT d.thread_id FROM delegations d
JOIN conversations c ON c.user_id = d.user_id AND c.id = d.thread_id
WHERE {where} ORDER BY d.thread_id LIMIT 1 FOR UPDATE OF c SKIP LOCKED
"""
_LOCK = f"SELECT {COLUMNS} FROM delegations d WHERE {{where}} AND d.thread_id = ${{n}} FOR UPDATE"


async def _take(conn: asyncpg.Connection, where: str, *args: object) -> DelegationRecord | None:
    """The first delegation matching `where` whose conversation no one else holds, locked
    conversation then delegation; None when there is none."""
    while True:
        thread_id = await conn.fetchval(_FIND.format(where=where), *args)
        if thread_id is None:
            return None
        row = await conn.fetchrow(_LOCK.format(where=where, n=len(args) + 1), *args, thread_id)
        if row is not None:
            return record(row)
        # Acknowledged by its child between the two reads: it no longer matches, look again.


async def take_mine(
    conn: asyncpg.Connection, *, user_id: str, agent: str, claimer: str
) -> DelegationRecord | None:
    """A claim of this claimer's that never reached it, locked."""
    return await _take(conn, _MINE, user_id, agent, claimer)


async def take_open(
    conn: asyncpg.Connection, *, user_id: str, agent: str
) -> DelegationRecord | None:
    """The oldest delegation open to the agent's claim, locked."""
    return await _take(conn, _OPEN, user_id, agent)


async def renew_lease(
    conn: asyncpg.Connection, *, user_id: str, thread_id: int, lease_s: float
) -> DelegationRecord:
    row = await conn.fetchrow(
        "UPDATE delegations SET lease_until = now() + make_interval(secs => $2)"
        f" WHERE user_id = $3 AND thread_id = $1 RETURNING {COLUMNS}",
        thread_id,
        lease_s,
        user_id,
    )
    return record(row)


# -- changes of state -------------------------------------------------------------------


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
    status: DelegationStatus,
    *,
    result: str | None,
    claimer: str | None,
    lease_s: float,
) -> DelegationRecord:
    """Write the delegation's move by `event` into `status` (the rules chose it)."""
    sql, taken = _move_sql(event, status)
    params = (thread.thread_id, thread.user_id, status.value, result, claimer, lease_s)
    return record(await conn.fetchrow(sql, *params[:taken]))


async def acknowledge(conn: asyncpg.Connection, *, user_id: str, thread_id: int) -> None:
    """The claim reached its child: it no longer lapses."""
    await conn.execute(
        "UPDATE delegations SET acked_at = now(), lease_until = NULL"
        " WHERE user_id = $2 AND thread_id = $1",
        thread_id,
        user_id,
    )


# Only the claim that was read: if it lapsed and another process claimed the thread since,
# that newer claim has not reached anyone yet and must stay re-deliverable.
_ACK = (
    "UPDATE delegations SET acked_at = now(), lease_until = NULL WHERE user_id = $3"
    " AND thread_id = $1 AND child_agent = $2 AND status = 'claimed' AND acked_at IS NULL"
    " AND claimed_at = $4"
)


async def acknowledge_claim(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    thread_id: int,
    agent: str,
    claimed_at: datetime | None,
) -> None:
    """Acknowledge the very claim `agent` read (made at `claimed_at`), if it still holds."""
    await conn.execute(_ACK, thread_id, agent, user_id, claimed_at)
