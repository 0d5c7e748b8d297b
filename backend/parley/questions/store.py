"""The SQL of questions: reading them with their answers, opening a permission request's
row, recording an answer, closing, and the escalation a question asked for (what happens at
its deadlines is `store_deadlines`').

Locks are taken in the order every writer of a conversation keeps: the conversation's row
first, then the question's row (then, inside `append_message`, the conversation's advisory
lock, then run rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley import audit, conversations
from parley.auth import Caller
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden, NotFound, ParleyError
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import MessageKind, Role
from parley.questions.status import QuestionStatus, move


@dataclass(slots=True)
class QuestionState:
    question: StoredMessage
    status: str  # a QuestionStatus
    answer: StoredMessage | None
    timeout_at: datetime
    seconds_left: float  # until the question's own deadline (0 when past)
    asked_by: str | None
    run_id: int | None


def not_found(question_id: int) -> NotFound:
    return NotFound(f"Question {question_id} not found", question_id=question_id)


def is_permission(meta: dict[str, Any] | None) -> bool:
    return bool((meta or {}).get("permission"))


def oldest_open_sql(*, user: str, conversation: str) -> str:
    """The message id of the conversation's oldest open question still within its time (a
    subquery other aggregates' statements read a thread's state with)."""
    return (
        f"(SELECT q.message_id FROM questions q WHERE q.user_id = {user}"
        f" AND q.conversation_id = {conversation} AND q.status = 'open'"
        " AND q.timeout_at > now() ORDER BY q.message_id LIMIT 1)"
    )


Q_COLUMNS = messages.prefixed("q")
# A question's own message, joined as `q` to its row `s`.
Q_JOIN = messages.joined("q", user="s.user_id", message_id="s.message_id")
_SELECT = f"""
SELECT {Q_COLUMNS}, {messages.prefixed("a")}, s.status, s.timeout_at, s.asked_by, s.run_id,
       greatest(0, extract(epoch FROM s.timeout_at - clock_timestamp()))::float8 AS seconds_left
FROM questions s {Q_JOIN}
{messages.joined("a", user="s.user_id", message_id="s.answer_id", left=True)}
"""
_READ = _SELECT + "WHERE s.message_id = $1 AND s.user_id = $2"
_OPEN = (
    _SELECT
    + """WHERE s.user_id = $1 AND s.status = 'open' AND s.timeout_at > now()
AND ($2::text IS NULL OR s.asked_by = $2) ORDER BY s.message_id LIMIT $3"""
)


def message(row: Any, prefix: str) -> StoredMessage | None:
    if row[f"{prefix}id"] is None:
        return None
    return messages.record(row, prefix)


def state(row: Any) -> QuestionState:
    question = message(row, "q_")
    assert question is not None
    return QuestionState(
        question=question,
        status=row["status"],
        answer=message(row, "a_"),
        timeout_at=row["timeout_at"],
        seconds_left=row["seconds_left"],
        asked_by=row["asked_by"],
        run_id=row["run_id"],
    )


async def read(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> Any:
    """The question's row with its message and answer (None if not the person's)."""
    return await conn.fetchrow(_READ, question_id, user_id)


@retry_on_reconnect
async def open_questions(db: Database, *, caller: Caller, limit: int = 100) -> list[QuestionState]:
    """What waits on the person: their open questions, wherever asked (inbox, runs, threads,
    work sessions), oldest first. An agent sees only the ones it asked."""
    async with db.connection() as conn:
        rows = await conn.fetch(_OPEN, caller.user_id, caller.agent, limit)
    return [state(row) for row in rows]


async def lock_conversation(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int
) -> None:
    await conn.execute(
        "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE",
        conversation_id,
        user_id,
    )


# What `parley_writable` raises for a person's write, as service errors (the same codes
# `runs.messages` gives its posts).
_REFUSALS: dict[str, Callable[[str], ParleyError]] = {
    "PT404": lambda m: NotFound(m),
    "PT409": lambda m: ParleyError(m, status=409, code="not_writable"),
    "PT410": lambda m: ParleyError(m, status=409, code="run_finished"),
    "PT403": lambda m: Forbidden(m, code="not_your_run"),
}


async def lock_writable(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    """Lock the conversation with the checks of every other write there: a finished run,
    a closed thread refuses."""
    try:
        await conn.execute("SELECT parley_writable($1, NULL, $2)", user_id, conversation_id)
    except asyncpg.PostgresError as exc:
        make = _REFUSALS.get(getattr(exc, "sqlstate", "") or "")
        if make is None:
            raise
        raise make(str(getattr(exc, "message", exc))) from exc


async def lock_open(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> Any:
    """The question's row, locked, with whether it is past its deadline, and its message."""
    return await conn.fetchrow(
        f"""SELECT s.status, s.timeout_at <= now() AS overdue, {Q_COLUMNS}
        FROM questions s {Q_JOIN}
        WHERE s.user_id = $2 AND s.message_id = $1 FOR UPDATE OF s""",
        question_id,
        user_id,
    )


async def open_permission(
    conn: asyncpg.Connection,
    *,
    conversation_id: int,
    content: str,
    timeout_s: float,
    user_id: str,
    asked_by: str,
    author: str,
    meta: dict[str, Any],
) -> StoredMessage:
    """A work session's permission request: its message (from the session's assistant)
    and its row among the person's questions, asked by the session's run agent for the
    session's run (the table agents' questions use too, so the person's event stream
    announces it and `GET /questions/{id}` reads it)."""
    question = await messages.append(
        conn,
        conversation_id=conversation_id,
        user_id=user_id,
        role=Role.assistant,
        author=author,
        kind=MessageKind.question,
        content=content,
        error=False,
        reply_to=None,
        meta=meta,
    )
    run_id = await conn.fetchval(
        "SELECT run_id FROM work_sessions WHERE user_id = $1 AND conversation_id = $2",
        user_id,
        conversation_id,
    )
    await conn.execute(
        """INSERT INTO questions (message_id, user_id, conversation_id, run_id, asked_by,
        timeout_at) VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))""",
        question.id,
        user_id,
        conversation_id,
        run_id,
        asked_by,
        timeout_s,
    )
    return question


async def set_escalation(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    question_id: int,
    on_timeout: str,
    remind_after: float | None,
) -> None:
    await conn.execute(
        """INSERT INTO question_escalations (question_id, user_id, on_timeout, remind_after,
            next_at)
        VALUES ($1, $4, $2, $3, CASE WHEN $3::float8 IS NULL THEN NULL
                                     ELSE now() + make_interval(secs => $3::float8 * 60) END)
        ON CONFLICT (user_id, question_id) DO UPDATE SET on_timeout = EXCLUDED.on_timeout,
            remind_after = EXCLUDED.remind_after, next_at = EXCLUDED.next_at""",
        question_id,
        on_timeout,
        remind_after,
        user_id,
    )


async def record_answer(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    question_id: int,
    role: Role,
    author: str,
    content: str,
    meta: dict[str, Any] | None,
    decision: str | None,
) -> StoredMessage:
    """Store the answer to a locked, open question and close it as answered; a decision is
    kept on the question's message too (`meta.answer`), where the UI and a resuming
    session read it."""
    reply = await messages.append(
        conn,
        conversation_id=conversation_id,
        user_id=user_id,
        role=role,
        author=author,
        kind=MessageKind.answer,
        content=content,
        reply_to=question_id,
        meta=meta,
    )
    await close(conn, user_id, question_id, QuestionStatus.answered, answer_id=reply.id)
    if decision is not None:
        await messages.note_decision(
            conn, user_id=user_id, question_id=question_id, decision=decision
        )
    return reply


async def close(
    conn: asyncpg.Connection,
    user_id: str,
    question_id: int,
    status: QuestionStatus,
    *,
    answer_id: int | None = None,
) -> None:
    """Move a locked, open question out of `open`; its run goes back to `running` once none
    of its questions is open."""
    move(QuestionStatus.open, status)
    await conn.execute(
        """WITH closed AS (
            UPDATE questions SET status = $2, answer_id = $3, closed_at = now()
            WHERE user_id = $4 AND message_id = $1 AND status = 'open' RETURNING run_id
        )
        UPDATE agent_runs r SET status = 'running', last_activity_at = now()
        FROM closed WHERE r.user_id = $4 AND r.id = closed.run_id AND r.status = 'waiting_input'
          AND r.kind <> 'work'
          AND NOT EXISTS (SELECT 1 FROM questions o WHERE o.user_id = $4 AND o.run_id = r.id
                          AND o.status = 'open' AND o.message_id <> $1)""",
        question_id,
        status.value,
        answer_id,
        user_id,
    )


async def time_out_open(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    """Every question still open in the conversation times out (its run or thread ended)."""
    await conn.execute(
        "UPDATE questions SET status = 'timed_out', closed_at = now()"
        " WHERE user_id = $2 AND conversation_id = $1 AND status = 'open'",
        conversation_id,
        user_id,
    )


async def lock_status(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> str | None:
    """The question's status, its row locked; None if it is not the person's."""
    status: str | None = await conn.fetchval(
        "SELECT status FROM questions WHERE user_id = $2 AND message_id = $1 FOR UPDATE",
        question_id,
        user_id,
    )
    return status


async def lock_for_answer(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, question_id: int
) -> Any:
    """The question of this conversation an agent's answer replies to, its row locked until
    the answer commits: `asked_by` and `status` (an open one past its deadline reads
    `timed_out`); None if there is none."""
    return await conn.fetchrow(
        "SELECT asked_by, CASE WHEN status = 'open' AND timeout_at <= now() THEN 'timed_out'"
        " ELSE status END AS status FROM questions"
        " WHERE user_id = $3 AND message_id = $1 AND conversation_id = $2 FOR UPDATE",
        question_id,
        conversation_id,
        user_id,
    )


async def close_recorded(
    db: Database,
    *,
    user_id: str,
    question_ids: list[int],
    status: QuestionStatus = QuestionStatus.closed,
    **decision: Any,
) -> list[int]:
    """Close the named open questions and write what closed them (`audit.record_questions`'
    keywords) to the audit trail, in one transaction: no closed question goes unrecorded."""
    move(QuestionStatus.open, status)
    async with db.transaction() as conn:
        closed = await messages.close_questions(
            conn,
            user_id=user_id,
            run_id=None,
            question_ids=question_ids,
            keep=[],
            status=status.value,
        )
        await audit.record_questions(conn, user_id=user_id, question_ids=closed, **decision)
    return closed


async def close_unanswered(
    db: Database,
    *,
    user_id: str,
    run_id: int | None = None,
    question_ids: list[int] | None = None,
    keep: list[int] | None = None,
    status: QuestionStatus = QuestionStatus.closed,
) -> list[int]:
    """Close the open questions of a run (or the ones named), but those in `keep`: a
    session that ended, a prompt that finished or a call that was denied for want of an
    answer leaves nothing for the person's next message to answer by mistake."""
    move(QuestionStatus.open, status)
    async with db.connection() as conn:
        return await messages.close_questions(
            conn,
            user_id=user_id,
            run_id=run_id,
            question_ids=question_ids,
            keep=keep or [],
            status=status.value,
        )


async def current_permission(
    db: Database, *, user_id: str, conversation_id: int
) -> StoredMessage | None:
    """The permission question a plain message in this work conversation answers: the
    oldest open one its live run is waiting on now (in-band or parked), else None."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""SELECT {Q_COLUMNS} FROM questions s {Q_JOIN}
            JOIN work_sessions w ON w.user_id = s.user_id AND w.conversation_id = s.conversation_id
            JOIN agent_runs r ON r.user_id = s.user_id AND r.id = w.run_id
            WHERE s.user_id = $2 AND s.conversation_id = $1 AND s.status = 'open'
              AND s.timeout_at > now()
              AND s.run_id = w.run_id AND w.status = 'waiting_permission'
              AND r.status IN ('running', 'waiting_input') AND q.meta ? 'permission'
            ORDER BY s.message_id LIMIT 1""",
            conversation_id,
            user_id,
        )
    return message(row, "q_") if row else None


async def reply_target(
    db: Database, *, user_id: str, conversation_id: int, message_id: int
) -> StoredMessage:
    """The message a reply replies to, in this conversation (404 otherwise)."""
    async with db.connection() as conn:
        found = await messages.get(
            conn, user_id=user_id, conversation_id=conversation_id, message_id=message_id
        )
    if found is None:
        raise conversations.not_found(conversation_id)
    return found


async def locate(conn: asyncpg.Connection, *, user_id: str, question_id: int) -> Any:
    """Where the question is and what it is in (its conversation's mode), before anything
    is locked: the conversation is locked first, as every writer of it does."""
    return await conn.fetchrow(
        """SELECT q.conversation_id, q.status, c.mode::text AS mode
        FROM questions q
        JOIN conversations c ON c.user_id = q.user_id AND c.id = q.conversation_id
        WHERE q.message_id = $1 AND q.user_id = $2""",
        question_id,
        user_id,
    )
