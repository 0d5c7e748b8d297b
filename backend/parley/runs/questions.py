"""Questions agents ask and the waits for their answers, kept in PostgreSQL.

A question is a `kind=question` message plus a `questions` row (status, answer, deadline).
Waiting is reading that row, then sleeping until a `question` event for it (from any
instance) or the deadline, then reading again: a restart or another instance loses nothing,
and an agent that reconnects simply waits again for the same question id.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import StoredMessage
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.realtime.waits import Waits


@dataclass(slots=True)
class QuestionState:
    question: StoredMessage
    status: str  # open | answered | timed_out
    answer: StoredMessage | None
    timeout_at: datetime
    seconds_left: float  # until the question's own deadline (0 when past)
    asked_by: str | None
    run_id: int | None


def _not_found(question_id: int) -> NotFound:
    return NotFound(f"Question {question_id} not found", question_id=question_id)


_FIELDS = StoredMessage.__slots__
_Q_COLUMNS = ", ".join(f"q.{c} AS q_{c}" for c in _FIELDS)
_A_COLUMNS = ", ".join(f"a.{c} AS a_{c}" for c in _FIELDS)
_READ = f"""
SELECT {_Q_COLUMNS}, {_A_COLUMNS}, s.status, s.timeout_at, s.asked_by, s.run_id,
       greatest(0, extract(epoch FROM s.timeout_at - clock_timestamp()))::float8 AS seconds_left
FROM questions s JOIN messages q ON q.id = s.message_id
LEFT JOIN messages a ON a.id = s.answer_id
WHERE s.message_id = $1 AND s.user_id = $2
"""


def _message(row: Any, prefix: str) -> StoredMessage | None:
    if row[f"{prefix}id"] is None:
        return None
    return StoredMessage(**{c: row[prefix + c] for c in _FIELDS})


# Overdue questions close as timed_out; their run goes back to `running` once none of its
# questions is open. SKIP LOCKED: an instance never waits for another doing the same.
_EXPIRE = """
WITH due AS (
    SELECT message_id FROM questions
    WHERE status = 'open' AND timeout_at <= now() AND ($1::bigint IS NULL OR message_id = $1)
    ORDER BY message_id LIMIT 200 FOR UPDATE SKIP LOCKED
), closed AS (
    UPDATE questions s SET status = 'timed_out', closed_at = now()
    FROM due WHERE s.message_id = due.message_id RETURNING s.run_id, s.message_id
)
UPDATE agent_runs r SET status = 'running', last_activity_at = now()
WHERE r.id IN (SELECT run_id FROM closed) AND r.status = 'waiting_input'
  AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.run_id = r.id AND q.status = 'open'
                  AND q.message_id NOT IN (SELECT message_id FROM closed))
"""


async def expire_overdue(conn: asyncpg.Connection, question_id: int | None = None) -> None:
    await conn.execute(_EXPIRE, question_id)


@retry_on_reconnect
async def get_question(db: Database, *, caller: Caller, question_id: int) -> QuestionState:
    """A person sees every question of theirs; an agent only the questions it asked."""
    if not 1 <= question_id < 2**63:
        raise _not_found(question_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(_READ, question_id, caller.user_id)
        if row is not None and row["status"] == "open" and row["seconds_left"] <= 0:
            await expire_overdue(conn, question_id)
            row = await conn.fetchrow(_READ, question_id, caller.user_id)
    if row is None or (caller.agent is not None and row["asked_by"] != caller.agent):
        raise _not_found(question_id)
    question = _message(row, "q_")
    assert question is not None
    return QuestionState(
        question=question,
        status=row["status"],
        answer=_message(row, "a_"),
        timeout_at=row["timeout_at"],
        seconds_left=row["seconds_left"],
        asked_by=row["asked_by"],
        run_id=row["run_id"],
    )


async def wait_for_answer(
    db: Database, waits: Waits, *, caller: Caller, question_id: int, wait_s: float
) -> QuestionState:
    """Return once the question is answered or timed out, or after `wait_s` seconds with it
    still open (`status == "open"`: ask again with the same id)."""
    if wait_s < 0:
        raise InvalidInput("wait must not be negative", details=[{"field": "wait"}])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        with waits.watch(("question", question_id)) as woken:
            state = await get_question(db, caller=caller, question_id=question_id)
            left = deadline - loop.time()
            if state.status != "open" or left <= 0:
                return state
            # Wake for the question's own deadline too (a hair after it, so it is past).
            await asyncio.wait({woken}, timeout=min(left, state.seconds_left + 0.01))
