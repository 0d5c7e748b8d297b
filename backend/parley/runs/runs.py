"""Agent runs: an agent's unit of work with its own `run` conversation, status and progress.

The agent is the token's; a person's token can watch, write into and cancel a run, but not
start one. A finished run (completed, failed, cancelled, timed_out) is read-only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import StoredMessage, append_message, clean_title
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.models import AgentRun, ConversationMode, MessageKind, Role, columns, from_row
from parley.runs.messages import clean_text, lock_target, post_message

log = logging.getLogger(__name__)

MAX_ID = 2**31 - 1
STATUSES = ("running", "waiting_input", "completed", "failed", "cancelled", "timed_out")
ENDINGS = ("completed", "failed", "cancelled")


@dataclass(slots=True)
class RunRecord:
    id: int
    agent: str
    kind: str
    status: str
    title: str | None
    conversation_id: int | None
    parent_run_id: int | None
    started_at: datetime
    last_activity_at: datetime
    ended_at: datetime | None
    summary: str | None
    error: str | None
    progress: int | None
    latest_status: str | None


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
        conversation_id = await conn.fetchval(
            "INSERT INTO conversations (user_id, mode, title) VALUES ($1, $2, $3) RETURNING id",
            caller.user_id,
            ConversationMode.run.value,
            name,
        )
        row = await conn.fetchrow(
            "INSERT INTO agent_runs (user_id, agent, kind, title, conversation_id, parent_run_id)"
            f" VALUES ($1, $2, 'external', $3, $4, $5) RETURNING {COLUMNS}",
            caller.user_id,
            agent,
            name,
            conversation_id,
            parent_run_id,
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


async def run_conversation(db: Database, *, caller: Caller, run_id: int) -> int:
    """The run's conversation id (404 if the run is not the caller's)."""
    run = await get_run(db, user_id=caller.user_id, run_id=run_id)
    if run.conversation_id is None:
        raise not_found(run_id)
    return run.conversation_id


async def touch(db: Database, *, caller: Caller, run_id: int) -> None:
    """The run's agent was heard from (reading counts): not silent."""
    if caller.agent is None:
        return
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE agent_runs SET last_activity_at = now()"
            " WHERE id = $1 AND user_id = $2 AND agent = $3 AND status = 'running'",
            run_id,
            caller.user_id,
            caller.agent,
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
    """A `status` message in the run (meta.progress), and the run's latest status/progress."""
    if progress is not None and not 0 <= progress <= 100:
        raise InvalidInput("progress must be 0-100", details=[{"field": "progress"}])
    cleaned = clean_text(text, max_chars=max_chars)
    conversation_id = await run_conversation(db, caller=caller, run_id=run_id)
    posted = await post_message(
        db,
        caller=caller,
        conversation_id=conversation_id,
        text=cleaned,
        max_chars=max_chars,
        kind="status",
        meta={"progress": progress} if progress is not None else None,
    )
    async with db.connection() as conn:
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
    message says how it ended; open questions time out; the conversation turns read-only."""
    if status not in ENDINGS:
        raise InvalidInput(
            f"status must be one of {', '.join(ENDINGS)}", details=[{"field": "status"}]
        )
    note = clean_text(summary, max_chars=max_chars, field="summary") if summary else None
    conversation_id = await run_conversation(db, caller=caller, run_id=run_id)
    async with db.transaction() as conn:
        await lock_target(conn, caller=caller, conversation_id=conversation_id)
        kind = {"completed": MessageKind.completion, "failed": MessageKind.error}.get(
            status, MessageKind.status
        )
        await append_message(
            conn,
            conversation_id=conversation_id,
            user_id=caller.user_id,
            role=Role(caller.role),
            author=caller.author,
            kind=kind,
            content=note or f"Run {status}",
            meta={"run_status": status},
        )
        await _close_questions(conn, conversation_id)
        row = await conn.fetchrow(
            "UPDATE agent_runs SET status = $3::text::run_status, summary = $4, ended_at = now(),"
            " last_activity_at = now(), error = CASE WHEN $3::text = 'failed' THEN $4 END,"
            " progress = CASE WHEN $3::text = 'completed' THEN 100 ELSE progress END"
            f" WHERE id = $1 AND user_id = $2 RETURNING {COLUMNS}",
            run_id,
            caller.user_id,
            status,
            note,
        )
    return record(row)


async def _close_questions(conn: asyncpg.Connection, conversation_id: int) -> None:
    await conn.execute(
        "UPDATE questions SET status = 'timed_out', closed_at = now()"
        " WHERE conversation_id = $1 AND status = 'open'",
        conversation_id,
    )


# Runs not heard from in time; SKIP LOCKED so instances sweeping at once never wait.
_SILENT = f"""
WITH silent AS (
    UPDATE agent_runs SET status = 'timed_out', ended_at = now(),
        error = 'No word from the agent for ' || $1::int || ' s'
    WHERE id IN (SELECT id FROM agent_runs WHERE status = 'running' AND kind = 'external'
                 AND last_activity_at < now() - make_interval(secs => $1)
                 ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED)
    RETURNING user_id, {COLUMNS}
), threads AS (  -- a silent child closes its delegation thread
    UPDATE delegations d SET status = 'timed_out', closed_at = now()
    FROM silent s WHERE d.child_run_id = s.id AND d.status IN ('pending', 'claimed')
)
SELECT * FROM silent
"""


async def time_out_silent(db: Database, *, silence_seconds: float) -> list[RunRecord]:
    """Mark silent runs timed_out (whichever instance notices first), then say so in each."""
    async with db.connection() as conn:
        rows = await conn.fetch(_SILENT, silence_seconds)
    for row in rows:
        if row["conversation_id"] is None:
            continue
        async with db.transaction() as conn:
            await append_message(
                conn,
                conversation_id=row["conversation_id"],
                user_id=row["user_id"],
                role=Role.system,
                author="parley",
                kind=MessageKind.status,
                content=f"Run timed out: no word from {row['agent']} for {int(silence_seconds)} s",
                meta={"run_status": "timed_out"},
            )
            await _close_questions(conn, row["conversation_id"])
    return [record(r) for r in rows]
