"""Agent runs: an agent's unit of work with its own `run` conversation, status and progress.

The agent is the token's; a person's token can watch, write into and cancel a run, but not
start one. A finished run (completed, failed, cancelled, timed_out) is read-only.
"""

from __future__ import annotations

import logging

from parley.auth import Caller
from parley.conversations import clean_title
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import MAX_INT, ConversationMode, MessageKind, Role, RunKind, RunStatus
from parley.runs import rules, store
from parley.runs.lifecycle import end_run
from parley.runs.messages import clean_text, lock_target, post_in
from parley.runs.store import RunRecord

__all__ = ["RunRecord"]

log = logging.getLogger(__name__)

MAX_ID = MAX_INT  # agent_runs.id is a PostgreSQL integer
STATUSES = tuple(RunStatus)
ENDINGS = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)


def not_found(run_id: int) -> NotFound:
    return NotFound(f"Run {run_id} not found", run_id=run_id)


def _check_id(run_id: int) -> None:
    if not 1 <= run_id <= MAX_ID:
        raise not_found(run_id)


async def start_run(
    db: Database,
    *,
    caller: Caller,
    title: str | None = None,
    parent_run_id: int | None = None,
) -> RunRecord:
    agent = caller.require_agent("Runs are started by agents")
    name = clean_title(title) if title is not None else f"Run by {agent}"
    async with db.transaction() as conn:
        if parent_run_id is not None:
            _check_id(parent_run_id)
            if not await store.exists(conn, user_id=caller.user_id, run_id=parent_run_id):
                raise InvalidInput(
                    f"parent_run_id {parent_run_id} is not one of your runs",
                    details=[{"field": "parent_run_id"}],
                )
        conversation_id = await conversation_store.insert(
            conn, user_id=caller.user_id, mode=ConversationMode.run, title=name
        )
        return await store.insert(
            conn,
            user_id=caller.user_id,
            agent=agent,
            kind=RunKind.external,
            title=name,
            conversation_id=conversation_id,
            parent_run_id=parent_run_id,
        )


@retry_on_reconnect
async def get_run(db: Database, *, user_id: str, run_id: int) -> RunRecord:
    _check_id(run_id)
    async with db.connection() as conn:
        found = await store.get(conn, user_id=user_id, run_id=run_id)
    if found is None:
        raise not_found(run_id)
    return found


@retry_on_reconnect
async def list_runs(db: Database, *, user_id: str, status: str | None = None) -> list[RunRecord]:
    if status is not None and status not in STATUSES:
        raise InvalidInput(
            f"status must be one of {', '.join(STATUSES)}", details=[{"field": "status"}]
        )
    async with db.connection() as conn:
        return await store.of_person(conn, user_id=user_id, status=status)


@retry_on_reconnect
async def runs_by_id(db: Database, *, user_id: str, ids: list[int]) -> list[RunRecord]:
    """The person's runs among `ids` (as a person event names them)."""
    async with db.connection() as conn:
        return await store.by_id(conn, user_id=user_id, ids=ids)


async def run_conversation(db: Database, *, caller: Caller, run_id: int) -> int:
    """The run's conversation id (404 if the run is not the caller's)."""
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)
    if run.conversation_id is None:
        raise not_found(run_id)
    return run.conversation_id


async def touch(db: Database, *, caller: Caller, run_id: int, wait_s: float = 0.0) -> None:
    """The run's agent was heard from (reading counts), and waits `wait_s` more seconds:
    until that wait's own deadline the run is not silent, even if the agent's connection
    drops meanwhile."""
    if caller.agent is None:
        return
    async with db.connection() as conn:
        await store.touch(
            conn, user_id=caller.user_id, run_id=run_id, agent=caller.agent, wait_s=wait_s
        )


async def report_status(
    db: Database,
    *,
    caller: Caller,
    run_id: int,
    text: str,
    progress: int | None,
    max_chars: int,
) -> tuple[RunRecord, StoredMessage]:
    """A `status` message in the run (meta.progress), and the run's latest status/progress,
    from the run's own agent (or the person)."""
    if progress is not None and not 0 <= progress <= 100:
        raise InvalidInput("progress must be 0-100", details=[{"field": "progress"}])
    cleaned = clean_text(text, max_chars=max_chars)
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)
    if run.conversation_id is None:
        raise not_found(run_id)
    rules.check_run_owner(caller, run_agent=run.agent, action="report on")
    async with db.transaction() as conn:
        posted = await post_in(
            conn,
            caller=caller,
            conversation_id=run.conversation_id,
            content=cleaned,
            kind="status",
            meta={"progress": progress} if progress is not None else None,
        )
        updated = await store.set_latest_status(
            conn, user_id=caller.user_id, run_id=run_id, status=cleaned[:500], progress=progress
        )
    return updated, posted.message


async def finish_run(
    db: Database,
    *,
    caller: Caller,
    run_id: int,
    status: str,
    summary: str | None,
    max_chars: int,
) -> RunRecord:
    """End the run: its agent with any ending, the person too (to cancel, say). A closing
    message says how it ended; open questions time out; the conversation turns read-only.
    A delegated run's thread closes with it (see `lifecycle.end_run`)."""
    if status not in ENDINGS:
        raise InvalidInput(
            f"status must be one of {', '.join(ENDINGS)}", details=[{"field": "status"}]
        )
    note = clean_text(summary, max_chars=max_chars, field="summary") if summary else None
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)
    if run.conversation_id is None:
        raise not_found(run_id)
    rules.check_run_owner(caller, run_agent=run.agent, action="finish")
    async with db.transaction() as conn:
        target = await lock_target(conn, caller=caller, conversation_id=run.conversation_id)
        thread = target.thread if target.thread and target.thread.child_run_id == run_id else None
        rules.check_finish(
            caller,
            run_agent=run.agent,
            thread=thread.facts if thread is not None else None,
            status=status,
        )
        kind = {"completed": MessageKind.completion, "failed": MessageKind.error}.get(
            status, MessageKind.status
        )
        await messages.append(
            conn,
            conversation_id=run.conversation_id,
            user_id=caller.user_id,
            role=Role(caller.role),
            author=caller.author,
            kind=kind,
            content=note or f"Run {status}",
            meta={"run_status": status},
        )
        await end_run(
            conn,
            user_id=caller.user_id,
            run_id=run_id,
            conversation_id=run.conversation_id,
            status=status,
            note=note,
        )
        return await store.reread(conn, user_id=caller.user_id, run_id=run_id)


async def time_out_silent(db: Database, *, silence_seconds: float) -> list[int]:
    """Mark silent runs timed_out and say so in each (closing a delegated run's thread with
    it). Each run in its own transaction that starts by locking its conversation SKIP
    LOCKED: whichever instance gets there first ends it, the others pass."""
    async with db.connection() as conn:
        candidates = await store.silent(conn, silence_seconds=silence_seconds)
    ended: list[int] = []
    for row in candidates:
        async with db.transaction() as conn:
            if row["conversation_id"] is not None:
                locked = await conversation_store.try_lock(
                    conn, user_id=row["user_id"], conversation_id=row["conversation_id"]
                )
                if not locked:
                    continue
            still = await store.still_silent(
                conn, user_id=row["user_id"], run_id=row["id"], silence_seconds=silence_seconds
            )
            if not still:
                continue
            silent_for = int(silence_seconds)
            await end_run(
                conn,
                user_id=row["user_id"],
                run_id=row["id"],
                conversation_id=row["conversation_id"],
                status="timed_out",
                note=None,
                error=f"No word from the agent for {silent_for} s",
            )
            if row["conversation_id"] is not None:
                await messages.append(
                    conn,
                    conversation_id=row["conversation_id"],
                    user_id=row["user_id"],
                    role=Role.system,
                    author="parley",
                    kind=MessageKind.status,
                    content=f"Run timed out: no word from {row['agent']} for {silent_for} s",
                    meta={"run_status": "timed_out"},
                )
            ended.append(row["id"])
    return ended
