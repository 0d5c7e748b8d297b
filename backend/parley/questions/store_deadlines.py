"""The statements of a question's deadlines: its escalation's steps (`question_escalations`:
the reminder push, the email and its one-time link) and, at the deadline, its default or
its expiry. The rest of a question's statements are `store`'s.

A step is claimed with `FOR UPDATE SKIP LOCKED` in the transaction that moves it, so it
happens once across instances. The searches for due work ("everyone's") are the only
statements that do not name a person: on a Citus cluster each node answers them from its
partial index; each step is then taken by a statement about one person's rows.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley.messages import store as messages
from parley.questions import store

# -- escalation steps -------------------------------------------------------------------

# Steps that are due, everyone's: each is then taken by itself (`take_step`).
_DUE = """
SELECT e.user_id, e.question_id, s.status = 'open' AS open
FROM question_escalations e
JOIN questions s ON s.user_id = e.user_id AND s.message_id = e.question_id
WHERE e.next_at <= now()
ORDER BY e.next_at LIMIT 20
"""
# An escalation whose question closed meanwhile has nothing left to do.
_SETTLED = """
UPDATE question_escalations e SET next_at = NULL FROM questions s
WHERE e.user_id = $1 AND e.question_id = $2 AND s.user_id = $1 AND s.message_id = $2
  AND e.next_at <= now() AND s.status <> 'open'
"""
# One step of one question: the reminder push (stage 0 -> 1) or the email (1 -> 2).
_CLAIM = f"""
SELECT e.question_id, e.user_id, e.stage, e.remind_after, s.conversation_id,
       m.content, m.author,
       -- Only an address its person proved is theirs: anyone may type someone else's.
       CASE WHEN a.email_verified_at IS NOT NULL THEN a.email END AS email,
       coalesce(p.email_reminders, true) AS email_ok,
       EXISTS (SELECT 1 FROM conversation_mutes c
               WHERE c.user_id = $1 AND c.conversation_id = s.conversation_id) AS muted
FROM question_escalations e
JOIN questions s ON s.user_id = $1 AND s.message_id = e.question_id
{messages.joined("m", user="$1", message_id="e.question_id")}
LEFT JOIN accounts a ON a.user_id = e.user_id
LEFT JOIN notification_prefs p ON p.user_id = $1
WHERE e.user_id = $1 AND e.question_id = $2 AND e.next_at <= now() AND s.status = 'open'
FOR UPDATE OF e SKIP LOCKED
"""


async def due_steps(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Everyone's due steps, at most 20: `user_id`, `question_id`, `open` (the question)."""
    return await conn.fetch(_DUE)


async def settle(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> None:
    """The question closed: its escalation has nothing left to do."""
    await conn.execute(_SETTLED, user_id, question_id)


async def take_step(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> Any:
    """The due step of an open question, locked (None if another instance holds it or it
    moved on): its stage, minutes, question and whom an email would go to."""
    return await conn.fetchrow(_CLAIM, user_id, question_id)


async def remind(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    question_id: int,
    conversation_id: int,
    next_in_s: float,
) -> None:
    """Stage 0 -> 1: a reminder push enqueued (parley/sql/push_enqueue.sql), the email due
    `next_in_s` from now."""
    await conn.execute(
        "SELECT parley_push_enqueue($1, 'reminder', $2, $3)",
        user_id,
        question_id,
        conversation_id,
    )
    await conn.execute(
        "UPDATE question_escalations SET stage = 1,"
        " next_at = now() + make_interval(secs => $3)"
        " WHERE user_id = $2 AND question_id = $1",
        question_id,
        user_id,
        # Not computed from the column in SQL: Citus refuses the clock combined with
        # a column in an UPDATE's SET.
        next_in_s,
    )


async def last_step(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> None:
    """Stage 1 -> 2: nothing is due any more."""
    await conn.execute(
        "UPDATE question_escalations SET stage = 2, next_at = NULL"
        " WHERE user_id = $2 AND question_id = $1",
        question_id,
        user_id,
    )


async def next_due(conn: asyncpg.Connection) -> float | None:
    """Seconds until the next step is due (None when none is waiting)."""
    due: float | None = await conn.fetchval(
        "SELECT extract(epoch FROM min(next_at) - now())::float8"
        " FROM question_escalations WHERE next_at IS NOT NULL"
    )
    return due


# -- the emailed link -------------------------------------------------------------------


async def keep_link(
    conn: asyncpg.Connection,
    *,
    key: str,
    purpose: str,
    user_id: str,
    data: dict[str, Any],
    ttl_s: float,
) -> None:
    """Keep a link's token (as `key`, its hash) for `ttl_s` seconds."""
    await conn.execute(
        "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
        " VALUES ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5))",
        key,
        purpose,
        user_id,
        data,
        ttl_s,
    )


async def use_link(conn: asyncpg.Connection, *, key: str, purpose: str) -> Any:
    """Take the link kept as `key` (once): its `data` and whether it is still `fresh`; None
    if it is unknown or used."""
    return await conn.fetchrow(
        "DELETE FROM auth_challenges WHERE id = $1 AND purpose = $2 RETURNING data,"
        " expires_at > now() AS fresh",
        key,
        purpose,
    )


# -- at the deadline --------------------------------------------------------------------

# The people with overdue questions (each node answers from its partial index of them).
_OVERDUE_PEOPLE = """
SELECT DISTINCT user_id FROM questions WHERE status = 'open' AND timeout_at <= now() LIMIT 200
"""
# A person's overdue questions close as timed_out; their run goes back to `running` once none
# of its questions is open. SKIP LOCKED: an instance never waits for another doing the same.
# One person's rows only: on a cluster, one node's statement.
_EXPIRE = """
WITH due AS (
    SELECT message_id FROM questions
    WHERE user_id = $2 AND status = 'open' AND timeout_at <= now()
      AND ($1::bigint IS NULL OR message_id = $1)
      AND NOT EXISTS (SELECT 1 FROM question_escalations e  -- those are decided, not expired
                      WHERE e.user_id = $2 AND e.question_id = message_id
                        AND e.on_timeout <> 'expire')
    ORDER BY message_id LIMIT 200 FOR UPDATE SKIP LOCKED
), closed AS (
    UPDATE questions s SET status = 'timed_out', closed_at = now()
    FROM due WHERE s.user_id = $2 AND s.message_id = due.message_id
    RETURNING s.run_id, s.message_id
), resumed AS (
    UPDATE agent_runs r SET status = 'running', last_activity_at = now()
    WHERE r.user_id = $2 AND r.id IN (SELECT run_id FROM closed) AND r.status = 'waiting_input'
      AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.user_id = $2 AND q.run_id = r.id
                      AND q.status = 'open'
                      AND q.message_id NOT IN (SELECT message_id FROM closed))
)
SELECT message_id FROM closed
"""


async def overdue_people(conn: asyncpg.Connection) -> list[str]:
    return [r["user_id"] for r in await conn.fetch(_OVERDUE_PEOPLE)]


async def expire(conn: asyncpg.Connection, *, user_id: str, question_id: int | None) -> list[int]:
    """Close the person's overdue questions without a default (`question_id` only, when
    given) as timed out: the ones closed."""
    return [row["message_id"] for row in await conn.fetch(_EXPIRE, question_id, user_id)]


_OVERDUE_DEFAULTS = """
SELECT s.message_id, s.conversation_id, s.user_id FROM questions s
JOIN question_escalations e ON e.user_id = s.user_id AND e.question_id = s.message_id
WHERE s.status = 'open' AND s.timeout_at <= now() AND e.on_timeout <> 'expire'
  AND ($1::bigint IS NULL OR s.message_id = $1) AND ($2::text IS NULL OR s.user_id = $2)
ORDER BY s.message_id LIMIT 50
"""
_LOCK_OVERDUE = f"""
SELECT e.on_timeout, {store.Q_COLUMNS} FROM questions s
JOIN question_escalations e ON e.user_id = s.user_id AND e.question_id = s.message_id
{store.Q_JOIN}
WHERE s.user_id = $2 AND s.message_id = $1 AND s.status = 'open' AND s.timeout_at <= now()
FOR UPDATE OF s SKIP LOCKED
"""


async def overdue_with_default(
    conn: asyncpg.Connection, *, user_id: str | None, question_id: int | None
) -> list[asyncpg.Record]:
    """Overdue questions that asked for a default, of `user_id` (or everyone's), at most 50:
    `message_id`, `conversation_id`, `user_id`."""
    return await conn.fetch(_OVERDUE_DEFAULTS, question_id, user_id)


async def lock_overdue(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> Any:
    """The still-open overdue question, locked (None if answered meanwhile or held by
    another instance): its `on_timeout` and its message (`q_` columns)."""
    return await conn.fetchrow(_LOCK_OVERDUE, question_id, user_id)
