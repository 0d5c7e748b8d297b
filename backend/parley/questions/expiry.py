"""Questions past their deadline: answered with their default (`on_timeout` deny or allow),
else closed as timed out, each exactly once whichever instance (a read, the sweeper) gets
there first."""

from __future__ import annotations

import asyncpg

from parley.models import Role
from parley.questions import store
from parley.questions.escalation import OnTimeout
from parley.questions.words import DECISION_TEXT, Decision

TIMEOUT_AUTHOR = "parley:timeout"

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
)
UPDATE agent_runs r SET status = 'running', last_activity_at = now()
WHERE r.user_id = $2 AND r.id IN (SELECT run_id FROM closed) AND r.status = 'waiting_input'
  AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.user_id = $2 AND q.run_id = r.id
                  AND q.status = 'open' AND q.message_id NOT IN (SELECT message_id FROM closed))
"""


async def expire_overdue(
    conn: asyncpg.Connection, question_id: int | None = None, *, user_id: str | None = None
) -> None:
    """Close the overdue questions of `user_id` (`question_id` only, when given), or of
    everyone: person by person."""
    await decide_overdue(conn, question_id, user_id=user_id)
    people = (
        [user_id]
        if user_id is not None
        else [r["user_id"] for r in await conn.fetch(_OVERDUE_PEOPLE)]
    )
    for person in people:
        await conn.execute(_EXPIRE, question_id, person)


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


async def decide_overdue(
    conn: asyncpg.Connection, question_id: int | None = None, *, user_id: str | None = None
) -> None:
    """Answer the overdue questions that asked for a default (`deny` or `allow`) with it,
    each exactly once: the conversation is locked first (as every answer does), then the
    question, skipped when another instance holds it, and only a still-open one moves."""
    for due in await conn.fetch(_OVERDUE_DEFAULTS, question_id, user_id):
        person = due["user_id"]
        async with conn.transaction():
            await store.lock_conversation(
                conn, user_id=person, conversation_id=due["conversation_id"]
            )
            row = await conn.fetchrow(_LOCK_OVERDUE, due["message_id"], person)
            if row is None:
                continue  # answered meanwhile, or another instance is deciding it
            question = store.message(row, "q_")
            assert question is not None
            allow = row["on_timeout"] == OnTimeout.allow
            chosen = Decision.allow if allow else Decision.deny
            permission = store.is_permission(question.meta)
            await store.record_answer(
                conn,
                user_id=person,
                conversation_id=due["conversation_id"],
                question_id=question.id,
                role=Role.system,
                author=TIMEOUT_AUTHOR,
                content=(DECISION_TEXT[chosen] if permission else ("yes" if allow else "no")),
                meta={"decision": chosen.value, "by": "timeout"}
                if permission
                else {"by": "timeout"},
                decision=chosen.value if permission else None,
            )
