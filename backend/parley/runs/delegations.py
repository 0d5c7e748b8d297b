"""Delegation: a parent agent's run hands a task to another agent in a typed thread.

The thread is a `delegation` conversation; the child's work is a run (`parent_run_id` set)
whose conversation is that thread. A delegation is `pending` until one process of the
addressed agent claims it (in the database: exactly one claimer, whatever the instance),
then `claimed` until the child completes, fails or escalates, the parent (or the person)
cancels, or a timeout closes it. Closing ends the child run with the matching status and
makes the thread read-only. The parent, the child and the person write into the thread
through `runs.messages.post_message`, which knows who may write there and who answers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import (
    StoredMessage,
    append_message,
    check_id,
    latest_message_id,
    title_from,
)
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden, InvalidInput, NotFound
from parley.models import ConversationMode, Delegation, MessageKind, Role, columns, from_row
from parley.realtime.hub import Hub
from parley.realtime.waits import Waits
from parley.runs import inbox
from parley.runs.messages import clean_text, lock_target, post_message
from parley.runs.runs import get_run

CLOSED = ("completed", "failed", "escalated", "cancelled", "timed_out")
# How each ending is written into the thread, and what it makes of the child run.
ENDINGS: dict[str, tuple[MessageKind, str]] = {
    "completed": (MessageKind.completion, "completed"),
    "failed": (MessageKind.error, "failed"),
    "escalated": (MessageKind.escalation, "failed"),
    "cancelled": (MessageKind.status, "cancelled"),
}
MAX_TIMEOUT = 7 * 24 * 3600.0


@dataclass(slots=True)
class DelegationRecord:
    thread_id: int
    parent_run_id: int | None
    child_run_id: int | None
    parent_agent: str
    child_agent: str
    task: str
    status: str
    result: str | None
    timeout_at: datetime
    created_at: datetime
    claimed_at: datetime | None
    closed_at: datetime | None


COLUMNS = columns(Delegation, DelegationRecord)


def record(row: Any) -> DelegationRecord:
    return from_row(DelegationRecord, row)


def not_found(thread_id: int) -> NotFound:
    return NotFound(f"Thread {thread_id} not found", thread_id=thread_id)


async def delegate(
    db: Database,
    *,
    caller: Caller,
    run_id: int,
    agent: str,
    task: str,
    timeout_s: float,
    max_chars: int,
) -> DelegationRecord:
    """From the caller's running run, hand `task` to `agent`: a thread whose first message is
    the `delegation`, and a child run waiting to be claimed."""
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)  # 404 first
    parent = caller.require_agent("Delegation is between agents")
    text = clean_text(task, max_chars=max_chars, field="task")
    to = clean_text(agent, max_chars=200, field="agent")
    if not 0 < timeout_s <= MAX_TIMEOUT:
        raise InvalidInput(
            f"timeout_s must be 0 < timeout_s <= {int(MAX_TIMEOUT)}",
            details=[{"field": "timeout_s"}],
        )
    async with db.transaction() as conn:
        if run.conversation_id is not None:  # the parent run must be the caller's, and open
            await lock_target(conn, caller=caller, conversation_id=run.conversation_id)
        thread = await conn.fetchval(
            "INSERT INTO conversations (user_id, mode, title) VALUES ($1, $2, $3) RETURNING id",
            caller.user_id,
            ConversationMode.delegation.value,
            title_from(f"{parent} → {to}: {text}"),
        )
        child = await conn.fetchval(
            "INSERT INTO agent_runs (user_id, agent, kind, title, conversation_id, parent_run_id)"
            " VALUES ($1, $2, 'external', $3, $4, $5) RETURNING id",
            caller.user_id,
            to,
            title_from(text),
            thread,
            run_id,
        )
        await append_message(
            conn,
            conversation_id=thread,
            user_id=caller.user_id,
            role=Role.agent,
            author=parent,
            kind=MessageKind.delegation,
            content=text,
            meta={"to": to, "parent_run_id": run_id, "child_run_id": child},
        )
        row = await conn.fetchrow(
            "INSERT INTO delegations (thread_id, user_id, parent_run_id, child_run_id,"
            " parent_agent, child_agent, task, timeout_at) VALUES ($1, $2, $3, $4, $5, $6, $7,"
            f" now() + make_interval(secs => $8)) RETURNING {COLUMNS}",
            thread,
            caller.user_id,
            run_id,
            child,
            parent,
            to,
            text,
            timeout_s,
        )
    return record(row)


_CLAIM = f"""
WITH next AS (
    SELECT thread_id FROM delegations
    WHERE user_id = $1 AND child_agent = $2 AND status = 'pending' AND timeout_at > now()
    ORDER BY thread_id LIMIT 1 FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE delegations d SET status = 'claimed', claimed_at = now()
    FROM next WHERE d.thread_id = next.thread_id RETURNING d.*
), started AS (
    UPDATE agent_runs r SET last_activity_at = now() FROM claimed c WHERE r.id = c.child_run_id
)
SELECT {COLUMNS} FROM claimed
"""


async def next_delegation(
    db: Database, waits: Waits, *, caller: Caller, wait_s: float
) -> DelegationRecord | None:
    """The oldest pending delegation addressed to the caller's agent, now claimed by it (no
    other process gets it); waits up to `wait_s` for one to arrive, else None."""
    agent = caller.require_agent("Delegation is between agents")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, wait_s)
    while True:
        with waits.watch(("user", caller.user_id)) as woken:
            async with db.connection() as conn:
                row = await conn.fetchrow(_CLAIM, caller.user_id, agent)
            left = deadline - loop.time()
            if row is not None or left <= 0:
                return record(row) if row is not None else None
            await asyncio.wait({woken}, timeout=left)


@dataclass(slots=True)
class ThreadState:
    delegation: DelegationRecord
    open_question: StoredMessage | None  # the child's question waiting for an answer


@retry_on_reconnect
async def get_thread(db: Database, *, caller: Caller, thread_id: int) -> ThreadState:
    """Seen by the person and the thread's two agents; 404 for anyone else."""
    check_id(thread_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {COLUMNS} FROM delegations WHERE thread_id = $1 AND user_id = $2",
            thread_id,
            caller.user_id,
        )
        if row is None or caller.agent not in (None, row["parent_agent"], row["child_agent"]):
            raise not_found(thread_id)
        question = await conn.fetchrow(
            "SELECT m.* FROM questions q JOIN messages m ON m.id = q.message_id"
            " WHERE q.conversation_id = $1 AND q.status = 'open' AND q.timeout_at > now()"
            " ORDER BY q.message_id LIMIT 1",
            thread_id,
        )
    open_question = StoredMessage(**question) if question is not None else None
    return ThreadState(record(row), open_question)


async def wait_for_child(
    db: Database, hub: Hub, *, caller: Caller, thread_id: int, wait_s: float
) -> ThreadState:
    """Returns when the thread has closed or has a question to answer, or after `wait_s`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, wait_s)
    await get_thread(db, caller=caller, thread_id=thread_id)  # 404 before watching anything
    latest = await latest_message_id(db, user_id=caller.user_id, conversation_id=thread_id)
    # Watch first, then read: whatever is stored after `latest` wakes this wait.
    watcher = await hub.subscribe(thread_id, latest)
    try:
        state = await get_thread(db, caller=caller, thread_id=thread_id)
        while state.delegation.status not in CLOSED and state.open_question is None:
            left = deadline - loop.time()
            if left <= 0:
                break
            try:
                async with asyncio.timeout(left):
                    await watcher.get()
            except TimeoutError:
                break
            state = await get_thread(db, caller=caller, thread_id=thread_id)
    finally:
        hub.unsubscribe(watcher)
    return state


async def close_thread(
    db: Database,
    *,
    caller: Caller,
    thread_id: int,
    outcome: str,
    text: str | None,
    max_chars: int,
    question_timeout: float,
) -> DelegationRecord:
    """The child completes, fails or escalates; the parent or the person cancels. The thread
    closes, the child run ends to match, open questions time out; an escalation also lands
    in the person's inbox as a question from the child."""
    state = await get_thread(db, caller=caller, thread_id=thread_id)
    thread = state.delegation
    if outcome == "cancelled":
        if caller.agent not in (None, thread.parent_agent):
            raise Forbidden("Only the parent agent or the person cancels", code="not_your_thread")
    elif caller.agent != thread.child_agent:
        raise Forbidden(f"Only {thread.child_agent} ends this thread", code="not_your_thread")
    note = clean_text(text, max_chars=max_chars) if text else None
    if outcome != "cancelled" and note is None:
        raise InvalidInput("text must not be empty", details=[{"field": "text"}])
    kind, run_status = ENDINGS[outcome]
    async with db.transaction() as conn:
        await lock_target(conn, caller=caller, conversation_id=thread_id)
        row = await conn.fetchrow(
            "UPDATE delegations SET status = $2, result = $3, closed_at = now()"
            f" WHERE thread_id = $1 RETURNING {COLUMNS}",
            thread_id,
            outcome,
            note,
        )
        await _end(conn, thread=record(row), run_status=run_status, note=note)
        await append_message(
            conn,
            conversation_id=thread_id,
            user_id=caller.user_id,
            role=Role(caller.role),
            author=caller.author,
            kind=kind,
            content=note or f"Delegation {outcome}",
            meta={
                "to": thread.parent_agent
                if caller.agent == thread.child_agent
                else thread.child_agent,
                "outcome": outcome,
            },
        )
    if outcome == "escalated" and note is not None:
        await post_message(
            db,
            caller=caller,
            conversation_id=await inbox.inbox_id(db, user_id=caller.user_id),
            text=f"Escalated from thread {thread_id} ({thread.parent_agent} → "
            f"{thread.child_agent}): {note}",
            kind="question",
            max_chars=max_chars + 200,
            default_timeout=question_timeout,
            meta={"thread_id": thread_id},
        )
    return record(row)


async def _end(
    conn: asyncpg.Connection, *, thread: DelegationRecord, run_status: str, note: str | None
) -> None:
    await conn.execute(
        "UPDATE questions SET status = 'timed_out', closed_at = now()"
        " WHERE conversation_id = $1 AND status = 'open'",
        thread.thread_id,
    )
    await conn.execute(
        "UPDATE agent_runs SET status = $2::text::run_status, ended_at = now(), summary = $3,"
        " progress = CASE WHEN $2::text = 'completed' THEN 100 ELSE progress END"
        " WHERE id = $1 AND status IN ('running', 'waiting_input')",
        thread.child_run_id,
        run_status,
        note,
    )


# Pending past their timeout: nobody claimed them. SKIP LOCKED: instances never wait.
_UNCLAIMED = f"""
UPDATE delegations SET status = 'timed_out', closed_at = now()
WHERE thread_id IN (SELECT thread_id FROM delegations
                    WHERE status = 'pending' AND timeout_at <= now()
                    ORDER BY thread_id LIMIT 200 FOR UPDATE SKIP LOCKED)
RETURNING {COLUMNS}, user_id
"""


async def time_out_unclaimed(db: Database) -> list[DelegationRecord]:
    """Close delegations nobody claimed in time; the thread says so (which wakes the
    parent's wait)."""
    async with db.connection() as conn:
        rows = await conn.fetch(_UNCLAIMED)
    for row in rows:
        thread = record(row)
        async with db.transaction() as conn:
            await _end(conn, thread=thread, run_status="timed_out", note=None)
            await append_message(
                conn,
                conversation_id=thread.thread_id,
                user_id=row["user_id"],
                role=Role.system,
                author="parley",
                kind=MessageKind.status,
                content=f"No {thread.child_agent} picked this up in time; the delegation timed out",
                meta={"outcome": "timed_out"},
            )
    return [record(r) for r in rows]
