"""Delegation: a parent agent's run hands a task to another agent in a typed thread.

The thread is a `delegation` conversation; the child's work is a run (`parent_run_id` set)
whose conversation is that thread. A delegation is `pending` until one process of the
addressed agent claims it (in the database: exactly one claimer, whatever the instance),
then `claimed` until the child completes, fails or escalates, the parent (or the person)
cancels, or a timeout closes it. A claim is a lease until the child first acts in the thread:
re-delivered to the same claimer if its answer was lost, open to every process again if it
lapses. Who may do what is `rules`'; every change of state is `lifecycle.move`, and the
thread and its child run end together (`lifecycle.end_run`).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from functools import partial

import asyncpg

from parley.auth import Caller, validate_agent_name
from parley.conversations import check_id, latest_message_id, title_from
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import MAX_TIMEOUT, ConversationMode, MessageKind, Role, RunKind
from parley.questions import ask as asking
from parley.questions.escalation import Escalation
from parley.realtime.hub import Hub
from parley.realtime.waits import Waits
from parley.runs import inbox, rules
from parley.runs.lifecycle import (
    COLUMNS,
    DelegationRecord,
    acknowledge,
    lock_thread,
    move,
    record,
)
from parley.runs.messages import clean_text, lock_target, post_question
from parley.runs.rules import DelegationStatus, Event
from parley.runs.runs import get_run, insert_run, touch

CLOSED = ("completed", "failed", "escalated", "cancelled", "timed_out")
# The closing events the thread routes take, and how each is written into the thread.
CLOSING: dict[str, tuple[Event, MessageKind]] = {
    "completed": (Event.complete, MessageKind.completion),
    "failed": (Event.fail, MessageKind.error),
    "escalated": (Event.escalate, MessageKind.escalation),
    "cancelled": (Event.cancel, MessageKind.status),
}
CLAIMER_PATTERN = r"^[A-Za-z0-9_.@:-]{1,64}$"
CLAIMER_RE = re.compile(CLAIMER_PATTERN)


def not_found(thread_id: int) -> NotFound:
    return NotFound(f"Thread {thread_id} not found", thread_id=thread_id)


def check_claimer(claimer: str | None) -> str | None:
    if claimer is not None and not CLAIMER_RE.fullmatch(claimer):
        raise InvalidInput(
            "claimer must be 1-64 characters of letters, digits, '_', '.', '@', ':' or '-'",
            details=[{"field": "claimer"}],
        )
    return claimer


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
    # A name no token can carry could never be claimed: refuse it as tokens do.
    to = validate_agent_name(agent if isinstance(agent, str) else "")
    if not 0 < timeout_s <= MAX_TIMEOUT:
        raise InvalidInput(
            f"timeout_s must be 0 < timeout_s <= {int(MAX_TIMEOUT)}",
            details=[{"field": "timeout_s"}],
        )
    async with db.transaction() as conn:
        if run.conversation_id is not None:  # the parent run must be the caller's, and open
            target = await lock_target(conn, caller=caller, conversation_id=run.conversation_id)
            rules.check_run_owner(caller, run_agent=run.agent, action="delegate from")
            if target.thread is not None:  # a child delegating on: only once it claimed
                rules.check_post(
                    caller, run_agent=run.agent, thread=target.thread.facts, kind="message"
                )
        thread = await conversation_store.insert(
            conn,
            user_id=caller.user_id,
            mode=ConversationMode.delegation,
            title=title_from(f"{parent} → {to}: {text}"),
        )
        child = (
            await insert_run(
                conn,
                user_id=caller.user_id,
                agent=to,
                kind=RunKind.external,
                title=title_from(text),
                conversation_id=thread,
                parent_run_id=run_id,
            )
        ).id
        await messages.append(
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


async def claim(
    db: Database, *, caller: Caller, claimer: str | None, lease_s: float
) -> DelegationRecord | None:
    """One try: the caller's unacknowledged claim again (same claimer), else the oldest open
    delegation for its agent, now claimed by it (each goes to exactly one caller)."""
    agent = caller.require_agent("Delegation is between agents")
    async with db.transaction() as conn:
        if claimer is not None:
            mine = await _take(conn, _MINE, caller.user_id, agent, claimer)
            if mine is not None:
                row = await conn.fetchrow(
                    "UPDATE delegations SET lease_until = now() + make_interval(secs => $2)"
                    f" WHERE user_id = $3 AND thread_id = $1 RETURNING {COLUMNS}",
                    mine.thread_id,
                    lease_s,
                    caller.user_id,
                )
                return record(row)
        found = await _take(conn, _OPEN, caller.user_id, agent)
        if found is None:
            return None
        if found.status == DelegationStatus.claimed:  # a lapsed claim: open again first
            found = await move(conn, found, Event.release)
        return await move(conn, found, Event.claim, claimer=claimer, lease_s=lease_s)


async def next_delegation(
    db: Database,
    waits: Waits,
    *,
    caller: Caller,
    wait_s: float,
    lease_s: float,
    claimer: str | None = None,
) -> DelegationRecord | None:
    """`claim`, waiting up to `wait_s` for something to claim, else None."""
    check_claimer(claimer)
    caller.require_agent("Delegation is between agents")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, wait_s)
    while True:
        with waits.watch(("user", caller.user_id)) as woken:
            found = await claim(db, caller=caller, claimer=claimer, lease_s=lease_s)
            left = deadline - loop.time()
            if found is not None or left <= 0:
                return found
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
        if row is None or not rules.can_see(caller, record(row).facts):
            raise not_found(thread_id)
        open_question = await messages.open_question_of(
            conn, user_id=caller.user_id, conversation_id=thread_id
        )
    return ThreadState(record(row), open_question)


async def heard_from(
    db: Database, *, caller: Caller, thread: DelegationRecord, wait_s: float = 0.0
) -> None:
    """One of the thread's agents read or waits on it: its run is not silent (until the wait's
    own deadline), and the child acting in the thread acknowledges its claim."""
    if caller.agent == thread.parent_agent and thread.parent_run_id is not None:
        await touch(db, caller=caller, run_id=thread.parent_run_id, wait_s=wait_s)
    if caller.agent == thread.child_agent and thread.status == DelegationStatus.claimed:
        async with db.connection() as conn:
            await conn.execute(
                _ACK, thread.thread_id, caller.agent, caller.user_id, thread.claimed_at
            )
        if thread.child_run_id is not None:
            await touch(db, caller=caller, run_id=thread.child_run_id, wait_s=wait_s)


# Only the claim that was read: if it lapsed and another process claimed the thread since,
# that newer claim has not reached anyone yet and must stay re-deliverable.
_ACK = (
    "UPDATE delegations SET acked_at = now(), lease_until = NULL WHERE user_id = $3"
    " AND thread_id = $1 AND child_agent = $2 AND status = 'claimed' AND acked_at IS NULL"
    " AND claimed_at = $4"
)


async def acknowledge_claim(db: Database, *, caller: Caller, thread_id: int) -> DelegationRecord:
    """The child says its claim reached it (its first write or read in the thread does the
    same): the delegation is no longer re-delivered and its claim no longer lapses."""
    await get_thread(db, caller=caller, thread_id=thread_id)  # 404 for anyone else
    async with db.transaction() as conn:
        thread = (await lock_target(conn, caller=caller, conversation_id=thread_id)).thread
        assert thread is not None
        rules.check_acknowledge(caller, thread=thread.facts)
        await acknowledge(conn, thread)
    return (await get_thread(db, caller=caller, thread_id=thread_id)).delegation


async def wait_for_child(
    db: Database, hub: Hub, *, caller: Caller, thread_id: int, wait_s: float
) -> ThreadState:
    """Returns when the thread has closed or has a question to answer, or after `wait_s`.
    The wait counts as its agent being heard from, up to its own deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, wait_s)
    first = await get_thread(db, caller=caller, thread_id=thread_id)  # 404 before anything
    await heard_from(db, caller=caller, thread=first.delegation, wait_s=wait_s)
    latest = await latest_message_id(db, user_id=caller.user_id, conversation_id=thread_id)
    # Watch first, then read: whatever is stored after `latest` wakes this wait.
    watcher = await hub.subscribe(thread_id, latest, user_id=caller.user_id)
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
    await heard_from(db, caller=caller, thread=state.delegation)
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
    event, kind = CLOSING[outcome]
    rules.check_close(caller, thread=state.delegation.facts, event=event)
    note = clean_text(text, max_chars=max_chars) if text else None
    if outcome != "cancelled" and note is None:
        raise InvalidInput("text must not be empty", details=[{"field": "text"}])
    async with db.transaction() as conn:
        target = await lock_target(conn, caller=caller, conversation_id=thread_id)
        thread = target.thread
        assert thread is not None
        rules.check_close(caller, thread=thread.facts, event=event)
        closed = await move(conn, thread, event, result=note)
        await messages.append(
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
        await asking.ask(
            db,
            user_id=caller.user_id,
            conversation_id=await inbox.inbox_id(db, user_id=caller.user_id),
            place=partial(post_question, caller=caller, meta={"thread_id": thread_id}),
            text=f"Escalated from thread {thread_id} ({thread.parent_agent} → "
            f"{thread.child_agent}): {note}",
            max_chars=max_chars + 200,
            timeout_s=None,
            default_timeout=question_timeout,
            escalation=Escalation(),
        )
    return closed


# Open threads the sweeper has something to do with: never claimed in time, or claimed by a
# process that never acted on it within its lease.
_DUE = """
SELECT thread_id, user_id FROM delegations
WHERE (status = 'pending' AND timeout_at <= now())
   OR (status = 'claimed' AND acked_at IS NULL AND lease_until <= now())
ORDER BY thread_id LIMIT 200
"""


async def sweep_threads(db: Database) -> list[DelegationRecord]:
    """Close delegations nobody claimed in time, and open again claims that lapsed
    unacknowledged; the thread says so (which wakes the parent's wait and the child's
    pollers). Each thread in its own transaction that locks the thread SKIP LOCKED."""
    async with db.connection() as conn:
        due = await conn.fetch(_DUE)
    moved: list[DelegationRecord] = []
    for row in due:
        async with db.transaction() as conn:
            locked = await conn.fetchval(
                "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE SKIP LOCKED",
                row["thread_id"],
                row["user_id"],
            )
            thread = (
                await lock_thread(conn, user_id=row["user_id"], thread_id=row["thread_id"])
                if locked
                else None
            )
            if thread is None:
                continue
            now = await conn.fetchval("SELECT now()")
            if thread.status == DelegationStatus.pending and thread.timeout_at <= now:
                thread = await move(conn, thread, Event.time_out)
                text = f"No {thread.child_agent} picked this up in time; the delegation timed out"
            elif (
                thread.status == DelegationStatus.claimed
                and thread.acked_at is None
                and thread.lease_until is not None
                and thread.lease_until <= now
            ):
                thread = await move(conn, thread, Event.release)
                text = (
                    f"The {thread.child_agent} process that claimed this never acted on it;"
                    " it is open to claim again"
                )
            else:
                continue
            await messages.append(
                conn,
                conversation_id=thread.thread_id,
                user_id=row["user_id"],
                role=Role.system,
                author="parley",
                kind=MessageKind.status,
                content=text,
                meta={"outcome": thread.status},
            )
            moved.append(thread)
    return moved
