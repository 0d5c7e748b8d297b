"""Agent runs: an agent's unit of work with its own `run` conversation, status and progress.

The agent is the token's; a person's token can watch, write into and cancel a run, but not
start one. A finished run (completed, failed, cancelled, timed_out) is read-only.
"""

from __future__ import annotations

import logging
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import clean_title
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import (
    MAX_INT,
    AgentRun,
    ConversationMode,
    MessageKind,
    Role,
    RunKind,
    RunStatus,
    columns,
    from_row,
)
from parley.runs import rules
from parley.runs.lifecycle import end_run
from parley.runs.messages import clean_text, lock_target, post_in
from parley.runs.schemas import RunOut

log = logging.getLogger(__name__)

MAX_ID = MAX_INT  # agent_runs.id is a PostgreSQL integer
STATUSES = tuple(RunStatus)
ENDINGS = (RunStatus.completed, RunStatus.failed, RunStatus.cancelled)


# A run as read is its wire shape: one definition (`RunOut`), validated from the row by name.
RunRecord = RunOut


COLUMNS = columns(AgentRun, RunRecord)


def record(row: Any) -> RunRecord:
    return from_row(RunRecord, row)


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
            parent = await conn.fetchval(
                "SELECT 1 FROM agent_runs WHERE id = $1 AND user_id = $2",
                parent_run_id,
                caller.user_id,
            )
            if parent is None:
                raise InvalidInput(
                    f"parent_run_id {parent_run_id} is not one of your runs",
                    details=[{"field": "parent_run_id"}],
                )
        conversation_id = await conversation_store.insert(
            conn, user_id=caller.user_id, mode=ConversationMode.run, title=name
        )
        return await insert_run(
            conn,
            user_id=caller.user_id,
            agent=agent,
            kind=RunKind.external,
            title=name,
            conversation_id=conversation_id,
            parent_run_id=parent_run_id,
        )


# The one insert into `agent_runs`: an agent's run, a delegated child's, a work session's.
_INSERT = f"""
INSERT INTO agent_runs
    (user_id, agent, kind, title, conversation_id, parent_run_id, summary, instance)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING {COLUMNS}
"""


async def insert_run(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    agent: str,
    kind: RunKind,
    title: str,
    conversation_id: int,
    parent_run_id: int | None = None,
    summary: str | None = None,
    instance: str | None = None,
) -> RunRecord:
    """A new run, `running`; `title` is clean and fits the column."""
    row = await conn.fetchrow(
        _INSERT,
        user_id,
        agent,
        kind.value,
        title,
        conversation_id,
        parent_run_id,
        summary,
        instance,
    )
    return record(row)


@retry_on_reconnect
async def get_run(db: Database, *, user_id: str, run_id: int) -> RunRecord:
    _check_id(run_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {COLUMNS} FROM agent_runs WHERE id = $1 AND user_id = $2", run_id, user_id
        )
    if row is None:
        raise not_found(run_id)
    return record(row)


@retry_on_reconnect
async def list_runs(db: Database, *, user_id: str, status: str | None = None) -> list[RunRecord]:
    if status is not None and status not in STATUSES:
        raise InvalidInput(
            f"status must be one of {', '.join(STATUSES)}", details=[{"field": "status"}]
        )
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $1"
            " AND ($2::run_status IS NULL OR status = $2) ORDER BY id DESC LIMIT 500",
            user_id,
            status,
        )
    return [record(r) for r in rows]


@retry_on_reconnect
async def runs_by_id(db: Database, *, user_id: str, ids: list[int]) -> list[RunRecord]:
    """The person's runs among `ids` (as a person event names them)."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $1 AND id = ANY($2::int[])",
            user_id,
            ids,
        )
    return [record(r) for r in rows]


async def run_conversation(db: Database, *, caller: Caller, run_id: int) -> int:
    """The run's conversation id (404 if the run is not the caller's)."""
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)
    if run.conversation_id is None:
        raise not_found(run_id)
    return run.conversation_id


_TOUCH = (
    "UPDATE agent_runs SET last_activity_at = now()"
    " WHERE id = $1 AND user_id = $2 AND agent = $3 AND status = 'running'"
)
_TOUCH_WAITING = (
    "UPDATE agent_runs SET last_activity_at = now(),"
    " waiting_until = greatest(waiting_until, now() + make_interval(secs => $4))"
    " WHERE id = $1 AND user_id = $2 AND agent = $3 AND status = 'running'"
)


async def touch(db: Database, *, caller: Caller, run_id: int, wait_s: float = 0.0) -> None:
    """The run's agent was heard from (reading counts), and waits `wait_s` more seconds:
    until that wait's own deadline the run is not silent, even if the agent's connection
    drops meanwhile."""
    if caller.agent is None:
        return
    # Two statements, not a CASE: Citus refuses the clock inside a CASE of an UPDATE's SET.
    async with db.connection() as conn:
        if wait_s > 0:
            await conn.execute(_TOUCH_WAITING, run_id, caller.user_id, caller.agent, wait_s)
        else:
            await conn.execute(_TOUCH, run_id, caller.user_id, caller.agent)


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
        row = await conn.fetchrow(
            "UPDATE agent_runs SET latest_status = $3, progress = coalesce($4, progress)"
            f" WHERE id = $1 AND user_id = $2 RETURNING {COLUMNS}",
            run_id,
            caller.user_id,
            cleaned[:500],
            progress,
        )
    return record(row), posted.message


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
        row = await conn.fetchrow(
            f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $2 AND id = $1",
            run_id,
            caller.user_id,
        )
    return record(row)


# Runs not heard from in time (nor waiting: a wait has its own deadline), except a delegated
# run nobody has claimed yet, which waits for its delegation's own timeout instead.
_SILENT = """
SELECT r.id, r.user_id, r.agent, r.conversation_id FROM agent_runs r
WHERE r.status = 'running' AND r.kind = 'external'
  AND greatest(r.last_activity_at, r.waiting_until) < now() - make_interval(secs => $1)
  AND NOT EXISTS (SELECT 1 FROM delegations d WHERE d.user_id = r.user_id
                  AND d.child_run_id = r.id AND d.status = 'pending')
ORDER BY r.id LIMIT 200
"""
_STILL_SILENT = """
SELECT 1 FROM agent_runs r WHERE r.user_id = $3 AND r.id = $1 AND r.status = 'running'
  AND greatest(r.last_activity_at, r.waiting_until) < now() - make_interval(secs => $2)
  AND NOT EXISTS (SELECT 1 FROM delegations d WHERE d.user_id = r.user_id
                  AND d.child_run_id = r.id AND d.status = 'pending')
"""


async def time_out_silent(db: Database, *, silence_seconds: float) -> list[int]:
    """Mark silent runs timed_out and say so in each (closing a delegated run's thread with
    it). Each run in its own transaction that starts by locking its conversation SKIP
    LOCKED: whichever instance gets there first ends it, the others pass."""
    async with db.connection() as conn:
        candidates = await conn.fetch(_SILENT, silence_seconds)
    ended: list[int] = []
    for row in candidates:
        async with db.transaction() as conn:
            if row["conversation_id"] is not None:
                locked = await conn.fetchval(
                    "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1"
                    " FOR UPDATE SKIP LOCKED",
                    row["conversation_id"],
                    row["user_id"],
                )
                if locked is None:
                    continue
            still = await conn.fetchval(_STILL_SILENT, row["id"], silence_seconds, row["user_id"])
            if still is None:
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
