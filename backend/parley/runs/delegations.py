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

from parley.auth import Caller, validate_agent_name
from parley.conversations import check_id, title_from
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
from parley.runs import store as run_store
from parley.runs import store_delegations as store
from parley.runs.lifecycle import acknowledge, move
from parley.runs.messages import clean_text, lock_target, post_question
from parley.runs.rules import DelegationStatus, Event
from parley.runs.runs import get_run, touch
from parley.runs.store_delegations import DelegationRecord

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
            await run_store.insert(
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
        return await store.insert(
            conn,
            thread_id=thread,
            user_id=caller.user_id,
            parent_run_id=run_id,
            child_run_id=child,
            parent_agent=parent,
            child_agent=to,
            task=text,
            timeout_s=timeout_s,
        )


async def claim(
    db: Database, *, caller: Caller, claimer: str | None, lease_s: float
) -> DelegationRecord | None:
    """One try: the caller's unacknowledged claim again (same claimer), else the oldest open
    delegation for its agent, now claimed by it (each goes to exactly one caller)."""
    agent = caller.require_agent("Delegation is between agents")
    async with db.transaction() as conn:
        if claimer is not None:
            mine = await store.take_mine(conn, user_id=caller.user_id, agent=agent, claimer=claimer)
            if mine is not None:
                return await store.renew_lease(
                    conn, user_id=caller.user_id, thread_id=mine.thread_id, lease_s=lease_s
                )
        found = await store.take_open(conn, user_id=caller.user_id, agent=agent)
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
        found = await store.get_with_question(conn, user_id=caller.user_id, thread_id=thread_id)
    if found is None or not rules.can_see(caller, found[0].facts):
        raise not_found(thread_id)
    return ThreadState(*found)


async def heard_from(
    db: Database, *, caller: Caller, thread: DelegationRecord, wait_s: float = 0.0
) -> None:
    """One of the thread's agents read or waits on it: its run is not silent (until the wait's
    own deadline), and the child acting in the thread acknowledges its claim."""
    if caller.agent == thread.parent_agent and thread.parent_run_id is not None:
        await touch(db, caller=caller, run_id=thread.parent_run_id, wait_s=wait_s)
    if caller.agent == thread.child_agent and thread.status == DelegationStatus.claimed:
        async with db.connection() as conn:
            await store.acknowledge_claim(
                conn,
                user_id=caller.user_id,
                thread_id=thread.thread_id,
                agent=caller.agent,
                claimed_at=thread.claimed_at,
            )
        if thread.child_run_id is not None:
            await touch(db, caller=caller, run_id=thread.child_run_id, wait_s=wait_s)


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
    check_id(thread_id)
    async with db.connection() as conn:  # no ownership check here: the first read is it
        latest = await messages.latest_id(conn, user_id=caller.user_id, conversation_id=thread_id)
    # Watch first, then read: whatever is stored after `latest` wakes this wait. The first
    # read is also the 404 for anyone the thread is not shown to, before anything is written.
    watcher = await hub.subscribe(thread_id, latest, user_id=caller.user_id)
    try:
        state = await get_thread(db, caller=caller, thread_id=thread_id)
        await heard_from(db, caller=caller, thread=state.delegation, wait_s=wait_s)
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


async def sweep_threads(db: Database) -> list[DelegationRecord]:
    """Close delegations nobody claimed in time, and open again claims that lapsed
    unacknowledged; the thread says so (which wakes the parent's wait and the child's
    pollers). Each thread in its own transaction that locks the thread SKIP LOCKED."""
    async with db.connection() as conn:
        due = await store.due(conn)
    moved: list[DelegationRecord] = []
    for row in due:
        async with db.transaction() as conn:
            locked = await conversation_store.try_lock(
                conn, user_id=row["user_id"], conversation_id=row["thread_id"]
            )
            thread = (
                await store.lock(conn, user_id=row["user_id"], thread_id=row["thread_id"])
                if locked
                else None
            )
            if thread is None:
                continue
            now = await store.now(conn)
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
