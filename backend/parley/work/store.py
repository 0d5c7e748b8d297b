"""What a work session keeps in PostgreSQL: its run, its row in work_sessions, its messages.

Everything the person must not lose lives here, not in the process: the Claude Code session
id (to resume), and a pending permission request with the exact tool call it stopped at.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.db import Database
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import RUN_TITLE_MAX, MessageKind, Role, RunKind, RunStatus
from parley.runs import store as run_store
from parley.runs.messages import MAX_TIMEOUT
from parley.schemas import IDLE_WORK
from parley.work.transport import scrub

AUTHOR = "claude"
RUN_AGENT = "claude-code"  # a session's run, and the asker of its permission questions
# A permission question waits for the person as long as the session keeps its deferred call;
# its row closes at the latest then, like any question (the longest a question may wait).
QUESTION_TIMEOUT = MAX_TIMEOUT
LIVE_RUN = (RunStatus.running.value, RunStatus.waiting_input.value)
# How a run ends when its server stops under it (shut down, or found gone by the reaper):
# not the person's doing, so the session's next start carries on that run.
SHUT_DOWN = "The server shut down"
OWNER_GONE = (
    "The server running this session stopped; its Claude Code process was ended."
    " Send a message to resume the session."
)


@dataclass(slots=True)
class SessionRow:
    conversation_id: int
    user_id: str
    run_id: int | None
    session_id: str | None
    workspace: str
    status: str
    cost_usd: float
    allowed_tools: list[str]
    pending: dict[str, Any] | None


_COLUMNS = (
    "conversation_id, user_id, run_id, session_id, workspace, status, cost_usd, "
    "allowed_tools, pending"
)


async def get_session(db: Database, *, user_id: str, conversation_id: int) -> SessionRow | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM work_sessions WHERE user_id = $2 AND conversation_id = $1",
            conversation_id,
            user_id,
        )
    return SessionRow(**row) if row else None


async def upsert_session(
    db: Database, *, conversation_id: int, user_id: str, workspace: str, run_id: int
) -> SessionRow:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""INSERT INTO work_sessions (conversation_id, user_id, workspace, run_id, status)
            VALUES ($1, $2, $3, $4, 'starting')
            ON CONFLICT (user_id, conversation_id) DO UPDATE
            SET run_id = EXCLUDED.run_id, status = 'starting', updated_at = EXCLUDED.updated_at
            RETURNING {_COLUMNS}""",
            conversation_id,
            user_id,
            workspace,
            run_id,
        )
    assert row is not None
    return SessionRow(**row)


async def update_session(db: Database, user_id: str, conversation_id: int, **values: Any) -> None:
    """Set the given columns (names are ours, never from input)."""
    if not values:
        return
    names = list(values)
    assignments = ", ".join(f"{name} = ${i + 3}" for i, name in enumerate(names))
    async with db.connection() as conn:
        await conn.execute(
            f"UPDATE work_sessions SET {assignments}, updated_at = now()"
            " WHERE user_id = $2 AND conversation_id = $1",
            conversation_id,
            user_id,
            *values.values(),
        )


async def add_cost(db: Database, user_id: str, conversation_id: int, cost: float) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE work_sessions SET cost_usd = cost_usd + $2"
            " WHERE user_id = $3 AND conversation_id = $1",
            conversation_id,
            cost,
            user_id,
        )


# -- runs (kind=work) ------------------------------------------------------------------


async def _insert_run(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, title: str, instance: str
) -> int:
    """A work session's run: its title the prompt's start, its summary the whole prompt."""
    run = await run_store.insert(
        conn,
        user_id=user_id,
        agent=RUN_AGENT,
        kind=RunKind.work,
        title=title[:RUN_TITLE_MAX],
        conversation_id=conversation_id,
        summary=title,
        instance=instance,
    )
    return run.id


async def start_run(
    db: Database, *, user_id: str, conversation_id: int, title: str, instance: str
) -> int:
    async with db.connection() as conn:
        run_id = await _insert_run(
            conn, user_id=user_id, conversation_id=conversation_id, title=title, instance=instance
        )
    return run_id


async def set_run(db: Database, user_id: str, run_id: int, **values: Any) -> None:
    """Only a live run changes: one ended meanwhile (End through another instance) stays
    ended, whatever its session, not yet told, writes."""
    names = list(values)
    assignments = ", ".join(f"{name} = ${i + 4}" for i, name in enumerate(names))
    async with db.connection() as conn:
        await conn.execute(
            f"UPDATE agent_runs SET {assignments}, last_activity_at = now()"
            " WHERE user_id = $3 AND id = $1 AND status = ANY($2::run_status[])",
            run_id,
            list(LIVE_RUN),
            user_id,
            *values.values(),
        )


async def end_run(
    db: Database,
    user_id: str,
    run_id: int,
    *,
    status: RunStatus,
    error: str | None,
    error_message: tuple[int, str] | None = None,
    prompts: list[int] | None = None,
    conn: asyncpg.Connection | None = None,
) -> bool:
    """Only a live run ends: an ended one keeps how it ended; True if this ended it. With
    `error_message` (conversation id, its owner) the error is stored as a reply in the same
    transaction, so whoever sees the error in the conversation also sees the run failed, and
    the other way round; `prompts`: the person's messages it leaves unanswered (`meta.prompts`).
    On `conn` when given (inside the caller's transaction)."""
    async with contextlib.AsyncExitStack() as stack:
        if conn is None:
            conn = await stack.enter_async_context(db.transaction())
        assert conn is not None
        if error_message is not None and error:
            conversation_id, user_id = error_message
            await store(
                db,
                conversation_id=conversation_id,
                user_id=user_id,
                content=error,
                meta={"type": "error", "prompts": prompts} if prompts else {"type": "error"},
                error=True,
                conn=conn,
            )
        done: str = await conn.execute(
            """UPDATE agent_runs SET status = $2, error = $3, ended_at = now(),
            last_activity_at = now()
            WHERE user_id = $5 AND id = $1 AND status = ANY($4::run_status[])""",
            run_id,
            status.value,
            error,
            list(LIVE_RUN),
            user_id,
        )
    return done.endswith(" 1")


@dataclass(frozen=True, slots=True)
class EndedSession:
    run_id: int
    owner: str | None  # the instance holding the session's lease, if one does
    was_live: bool  # false: it had ended already


async def end_session(
    db: Database, *, user_id: str, conversation_id: int, run_id: int | None = None
) -> EndedSession | None:
    """End the session as the person sees it, in one transaction: its run completed (which
    closes its open questions), its status ended, a parked call kept but marked closed (the
    next prompt resumes by denying it). Any instance can do this: the run is the record of
    the End, which the lease's holder acts on (`WorkManager.end`). With `run_id`, only while
    that is still the session's run. None: no such session (never started, or a newer run)."""
    async with db.transaction() as conn:
        row = await conn.fetchrow(
            """SELECT run_id, status, owner FROM work_sessions
            WHERE user_id = $2 AND conversation_id = $1 FOR UPDATE""",
            conversation_id,
            user_id,
        )
        if row is None or row["run_id"] is None or run_id not in (None, row["run_id"]):
            return None
        ended = await end_run(
            db, user_id, row["run_id"], status=RunStatus.completed, error=None, conn=conn
        )
        await conn.execute(
            """UPDATE work_sessions SET status = 'ended', updated_at = now(),
            pending = CASE WHEN pending IS NULL THEN NULL
                           ELSE pending || '{"closed": true}'::jsonb END
            WHERE user_id = $2 AND conversation_id = $1""",
            conversation_id,
            user_id,
        )
    return EndedSession(row["run_id"], row["owner"], ended or row["status"] != "ended")


async def park(
    db: Database,
    *,
    user_id: str,
    conversation_id: int,
    run_id: int,
    deferred: dict[str, Any],
    ended: bool,
) -> None:
    """Keep a deferred tool call, with its question, for the person's answer: the run waits
    for input, the session shows it waits for permission. If the session was ended (`ended`,
    or its run ended through another instance meanwhile) the call is kept closed instead:
    the next prompt resumes by denying it. One transaction, on the row `end_session` locks."""
    async with db.transaction() as conn:
        status = await conn.fetchval(
            """SELECT status FROM work_sessions
            WHERE user_id = $3 AND conversation_id = $1 AND run_id = $2 FOR UPDATE""",
            conversation_id,
            run_id,
            user_id,
        )
        waiting = not ended and status is not None and status != "ended"
        if waiting:
            waiting = (
                await conn.fetchval(
                    """UPDATE agent_runs SET status = 'waiting_input', pid = NULL,
                    last_activity_at = now()
                    WHERE user_id = $2 AND id = $1 AND status = 'running' RETURNING id""",
                    run_id,
                    user_id,
                )
                is not None
            )
        await conn.execute(
            """UPDATE work_sessions SET pending = $2, updated_at = now(),
            status = CASE WHEN $3 THEN 'waiting_permission' ELSE status END
            WHERE user_id = $4 AND conversation_id = $1""",
            conversation_id,
            deferred if waiting else {**deferred, "closed": True},
            waiting,
            user_id,
        )


async def set_status(
    db: Database, user_id: str, conversation_id: int, *, run_id: int, status: str
) -> None:
    """The status a live session shows, while `run_id` is its run and that run has not been
    ended: an End recorded by any instance sticks, whatever the session, not yet told (or
    being killed), still writes."""
    async with db.connection() as conn:
        await conn.execute(
            """UPDATE work_sessions SET status = $3, updated_at = now()
            WHERE user_id = $4 AND conversation_id = $1 AND run_id = $2 AND status <> 'ended'""",
            conversation_id,
            run_id,
            status,
            user_id,
        )


async def run_live(db: Database, *, user_id: str, run_id: int) -> bool:
    async with db.connection() as conn:
        found: bool = await conn.fetchval(
            "SELECT status = ANY($2::run_status[]) FROM agent_runs WHERE user_id = $3 AND id = $1",
            run_id,
            list(LIVE_RUN),
            user_id,
        )
    return bool(found)


async def ended_runs(db: Database, *, runs: list[tuple[str, int]]) -> list[int]:
    """Which of these runs (person, run id) have ended (End recorded through another
    instance, say). One statement over the people's runs (on a cluster, the nodes of theirs):
    the person and the id together, as the key holds them."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            """SELECT r.id FROM agent_runs r
            JOIN unnest($1::text[], $2::bigint[]) AS s(user_id, id)
              ON r.user_id = s.user_id AND r.id = s.id
            WHERE r.user_id = ANY($1::text[]) AND NOT r.status = ANY($3::run_status[])""",
            [user_id for user_id, _ in runs],
            [run_id for _, run_id in runs],
            list(LIVE_RUN),
        )
    return [row["id"] for row in rows]


async def _reopen_run(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, instance: str
) -> int | None:
    """The session's run again, if only a server stopping ended it: a work session is one run
    from its first prompt to its End, however often the server restarts under it."""
    run_id: int | None = await conn.fetchval(
        """UPDATE agent_runs r SET status = 'running', ended_at = NULL, error = NULL, pid = NULL,
        instance = $3, last_activity_at = now()
        FROM work_sessions s
        WHERE s.user_id = $1 AND s.conversation_id = $2 AND r.user_id = $1 AND r.id = s.run_id
          AND r.kind = 'work' AND r.status IN ('cancelled', 'failed') AND r.error = ANY($4::text[])
        RETURNING r.id""",
        user_id,
        conversation_id,
        instance,
        [SHUT_DOWN, OWNER_GONE],
    )
    return run_id


async def start_run_within_limit(
    db: Database, *, user_id: str, conversation_id: int, title: str, instance: str, limit: int
) -> int | None:
    """Start the session's run unless the person already has `limit` running: counted and
    inserted under a lock on the person, so concurrent starts on any instance cannot pass
    the limit together. None when the limit is reached."""
    async with db.transaction() as conn:
        await conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('parley-work-limit:' || $1, 0))",
            user_id,
        )
        count = await conn.fetchval(
            """SELECT count(*) FROM agent_runs WHERE user_id = $1 AND kind = 'work'
            AND status = 'running'""",
            user_id,
        )
        if count >= limit:
            return None
        run_id = await _reopen_run(
            conn, user_id=user_id, conversation_id=conversation_id, instance=instance
        ) or await _insert_run(
            conn, user_id=user_id, conversation_id=conversation_id, title=title, instance=instance
        )
        await conn.execute(
            """UPDATE work_sessions SET run_id = $2, status = 'starting', updated_at = now()
            WHERE user_id = $3 AND conversation_id = $1""",
            conversation_id,
            run_id,
            user_id,
        )
    return run_id


async def live_run_count(db: Database, *, user_id: str) -> int:
    async with db.connection() as conn:
        count: int = await conn.fetchval(
            """SELECT count(*) FROM agent_runs WHERE user_id = $1 AND kind = 'work'
            AND status = 'running'""",
            user_id,
        )
    return count


async def get_run(db: Database, *, user_id: str, run_id: int) -> dict[str, Any] | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            """SELECT id, agent, kind, status, conversation_id, started_at, ended_at, summary,
            error, pid, instance FROM agent_runs WHERE id = $1 AND user_id = $2""",
            run_id,
            user_id,
        )
    return dict(row) if row else None


# -- messages --------------------------------------------------------------------------


async def last_message_id(db: Database, *, user_id: str, conversation_id: int) -> int:
    async with db.connection() as conn:
        return await messages.latest_id(conn, user_id=user_id, conversation_id=conversation_id)


async def prompts_after(db: Database, *, since: dict[tuple[str, int], int]) -> list[StoredMessage]:
    """The person's prompts (not answers) stored after the given id, per (owner,
    conversation): one statement per person, each to the node of their rows."""
    people: dict[str, dict[int, int]] = {}
    for (user_id, conversation_id), after in since.items():
        people.setdefault(user_id, {})[conversation_id] = after
    found: list[StoredMessage] = []
    async with db.connection() as conn:
        for user_id, theirs in people.items():
            found += await messages.prompts_after(conn, user_id=user_id, after=theirs)
    return found


async def store(
    db: Database,
    *,
    conversation_id: int,
    user_id: str,
    content: str,
    meta: dict[str, Any],
    kind: MessageKind = MessageKind.output,
    role: Role = Role.assistant,
    error: bool = False,
    reply_to: int | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    conn: asyncpg.Connection | None = None,
) -> StoredMessage:
    """Store one of the session's messages; on `conn` when given (inside its transaction)."""
    text = scrub(content) if content.strip() else f"({meta.get('type', 'event')})"
    meta = scrub(meta)
    async with contextlib.AsyncExitStack() as stack:
        if conn is None:
            conn = await stack.enter_async_context(db.connection())
        return await messages.append(
            conn,
            conversation_id=conversation_id,
            user_id=user_id,
            role=role,
            author=AUTHOR if role is Role.assistant else None,
            kind=kind,
            content=text,
            error=error,
            reply_to=reply_to,
            meta=meta,
            tool_calls=scrub(tool_calls) if tool_calls else None,
        )


async def states(
    db: Database, *, user_id: str, conversation_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """The sessions of these work conversations as the API shows them, by id; one never
    started is idle."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            """SELECT conversation_id, status, cost_usd, run_id, workspace, session_id, pending
            FROM work_sessions WHERE user_id = $1 AND conversation_id = ANY($2::bigint[])""",
            user_id,
            conversation_ids,
        )
    found = {
        row["conversation_id"]: {
            "status": row["status"],
            "cost_usd": row["cost_usd"],
            "run_id": row["run_id"],
            "workspace": row["workspace"],
            "pending_question_id": None
            if (row["pending"] or {}).get("closed")
            else (row["pending"] or {}).get("question_id"),
        }
        for row in rows
    }
    return {i: found.get(i) or dict(IDLE_WORK) for i in conversation_ids}


_TAKE = """
UPDATE work_sessions w SET pending = NULL, updated_at = now()
FROM (SELECT user_id, conversation_id, pending FROM work_sessions
      WHERE user_id = $3 AND conversation_id = $1 FOR UPDATE) old
WHERE w.user_id = $3 AND w.conversation_id = old.conversation_id
  AND (old.pending ->> 'question_id')::bigint = $2
RETURNING w.conversation_id, w.user_id, w.run_id, w.session_id, w.workspace, w.status,
    w.cost_usd, w.allowed_tools, old.pending
"""


async def take_pending(
    db: Database, *, user_id: str, conversation_id: int, question_id: int
) -> SessionRow | None:
    """Take the deferred call waiting on this question, once: of two instances (or two
    tasks) acting on the same answer, only one resumes the session."""
    async with db.connection() as conn:
        row = await conn.fetchrow(_TAKE, conversation_id, question_id, user_id)
    return SessionRow(**row) if row else None


async def answered_pending(db: Database) -> list[SessionRow]:
    """Sessions parked on a question that has been answered (none is waiting to take it)."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"""SELECT {_COLUMNS} FROM work_sessions w
            WHERE w.pending IS NOT NULL AND NOT coalesce((w.pending ->> 'closed')::bool, false)
            AND EXISTS (SELECT 1 FROM questions q WHERE q.user_id = w.user_id
                        AND q.message_id = (w.pending ->> 'question_id')::bigint
                        AND q.status = 'answered')"""
        )
    return [SessionRow(**row) for row in rows]


def dumps(value: Any) -> str:
    return json.dumps(value)
