"""The one store of `agent_runs`: every statement on the table is here (a delegation's are
`store_delegations`'), and the call of `parley_writable`, which decides whether a
conversation takes a write and names its run. Each function runs on the caller's connection,
inside its transaction when it holds one: the services decide what is atomic and in which
order rows are locked (`lifecycle`'s lock order). Every statement names the owner's user id
but the sweep's search for silent runs, which is everyone's.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley.models import AgentRun, RunKind, columns, from_row
from parley.runs.schemas import RunOut

# A run as read is its wire shape: one definition (`RunOut`), validated from the row by name.
RunRecord = RunOut


COLUMNS = columns(AgentRun, RunRecord)


def record(row: Any) -> RunRecord:
    return from_row(RunRecord, row)


# The one insert into `agent_runs`: an agent's run, a delegated child's, a work session's.
_INSERT = f"""
INSERT INTO agent_runs
    (user_id, agent, kind, title, conversation_id, parent_run_id, summary, instance)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING {COLUMNS}
"""


async def insert(
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


# -- reads ------------------------------------------------------------------------------


async def exists(conn: asyncpg.Connection, *, user_id: str, run_id: int) -> bool:
    found = await conn.fetchval(
        "SELECT 1 FROM agent_runs WHERE id = $1 AND user_id = $2", run_id, user_id
    )
    return found is not None


async def get(conn: asyncpg.Connection, *, user_id: str, run_id: int) -> RunRecord | None:
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM agent_runs WHERE id = $1 AND user_id = $2", run_id, user_id
    )
    return record(row) if row is not None else None


async def reread(conn: asyncpg.Connection, *, user_id: str, run_id: int) -> RunRecord:
    """The run as the caller's transaction now sees it (it exists: the caller read it)."""
    row = await conn.fetchrow(
        f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $2 AND id = $1", run_id, user_id
    )
    return record(row)


async def of_person(
    conn: asyncpg.Connection, *, user_id: str, status: str | None
) -> list[RunRecord]:
    """The person's newest 500 runs (only those in `status`, when given)."""
    rows = await conn.fetch(
        f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $1"
        " AND ($2::run_status IS NULL OR status = $2) ORDER BY id DESC LIMIT 500",
        user_id,
        status,
    )
    return [record(r) for r in rows]


async def by_id(conn: asyncpg.Connection, *, user_id: str, ids: list[int]) -> list[RunRecord]:
    rows = await conn.fetch(
        f"SELECT {COLUMNS} FROM agent_runs WHERE user_id = $1 AND id = ANY($2::int[])",
        user_id,
        ids,
    )
    return [record(r) for r in rows]


async def agent_of(conn: asyncpg.Connection, *, user_id: str, run_id: int) -> str | None:
    agent: str | None = await conn.fetchval(
        "SELECT agent FROM agent_runs WHERE user_id = $2 AND id = $1", run_id, user_id
    )
    return agent


async def writable(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> int | None:
    """`parley_writable` (migration 0010): locks the conversation if it takes writes and
    returns its run's id, if it is a run's; raises its refusals (`asyncpg` errors, SQLSTATE
    PT...) otherwise."""
    run_id: int | None = await conn.fetchval(
        "SELECT parley_writable($1, $2, $3)", user_id, None, conversation_id
    )
    return run_id


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


async def silent(conn: asyncpg.Connection, *, silence_seconds: float) -> list[asyncpg.Record]:
    """Everyone's silent runs, at most 200: `id`, `user_id`, `agent`, `conversation_id`."""
    return await conn.fetch(_SILENT, silence_seconds)


async def still_silent(
    conn: asyncpg.Connection, *, user_id: str, run_id: int, silence_seconds: float
) -> bool:
    found = await conn.fetchval(_STILL_SILENT, run_id, silence_seconds, user_id)
    return found is not None


# -- writes -----------------------------------------------------------------------------

_TOUCH = (
    "UPDATE agent_runs SET last_activity_at = now()"
    " WHERE id = $1 AND user_id = $2 AND agent = $3 AND status = 'running'"
)
_TOUCH_WAITING = (
    "UPDATE agent_runs SET last_activity_at = now(),"
    " waiting_until = greatest(waiting_until, now() + make_interval(secs => $4))"
    " WHERE id = $1 AND user_id = $2 AND agent = $3 AND status = 'running'"
)


async def touch(
    conn: asyncpg.Connection, *, user_id: str, run_id: int, agent: str, wait_s: float
) -> None:
    """The running run of `agent` was heard from, and waits `wait_s` more seconds."""
    # Two statements, not a CASE: Citus refuses the clock inside a CASE of an UPDATE's SET.
    if wait_s > 0:
        await conn.execute(_TOUCH_WAITING, run_id, user_id, agent, wait_s)
    else:
        await conn.execute(_TOUCH, run_id, user_id, agent)


async def heard(conn: asyncpg.Connection, *, user_id: str, run_id: int | None) -> None:
    """The run was heard from, whatever its state (its child claimed a delegation)."""
    await conn.execute(
        "UPDATE agent_runs SET last_activity_at = now() WHERE user_id = $2 AND id = $1",
        run_id,
        user_id,
    )


async def set_latest_status(
    conn: asyncpg.Connection, *, user_id: str, run_id: int, status: str, progress: int | None
) -> RunRecord:
    """The run's latest status line (and progress, when given)."""
    row = await conn.fetchrow(
        "UPDATE agent_runs SET latest_status = $3, progress = coalesce($4, progress)"
        f" WHERE id = $1 AND user_id = $2 RETURNING {COLUMNS}",
        run_id,
        user_id,
        status,
        progress,
    )
    return record(row)


async def end(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    run_id: int,
    status: str,
    note: str | None,
    error: str | None,
) -> None:
    """End the run if it is still open (a no-op for one already ended)."""
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
