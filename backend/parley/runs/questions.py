"""Questions agents ask and the waits for their answers, kept in PostgreSQL.

A question is a `kind=question` message plus a `questions` row (status, answer, deadline).
Waiting is reading that row, then sleeping until a `question` event for it (from any
instance) or the deadline, then reading again: a restart or another instance loses nothing,
and an agent that reconnects simply waits again for the same question id.

A work session's permission prompt is a question like any other (asked by the session's
run agent, the tool call in the question's `meta.permission`), answered by a decision as
well as by text. Every question moves through one state machine (`QuestionStatus`): open,
then exactly one of answered, timed_out or closed (its session ended or its prompt was
superseded). Only the person answers, and only once: the answer takes the question's row
lock, so of two answers at once the second finds it answered and stores nothing.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import asyncpg

from parley import conversations
from parley.auth import Caller
from parley.conversations import StoredMessage
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden, InvalidInput, NotFound, ParleyError
from parley.models import MAX_BIGINT, MessageKind, Role
from parley.realtime.waits import Waits
from parley.runs.messages import clean_text, refusal


class QuestionStatus(StrEnum):
    open = "open"
    answered = "answered"
    timed_out = "timed_out"  # nobody answered before its deadline
    closed = "closed"  # its session ended or a newer prompt superseded it


class Decision(StrEnum):
    """What a person decides about a permission request."""

    allow = "allow"
    allow_session = "allow_session"  # allow, and allow this tool for the rest of the session
    deny = "deny"


DECISION_TEXT = {
    Decision.allow: "Allow",
    Decision.allow_session: "Allow for this session",
    Decision.deny: "Deny",
}


class AlreadyAnswered(ParleyError):
    status = 409
    code = "already_answered"


class QuestionClosed(ParleyError):
    status = 409
    code = "question_closed"


def move(current: QuestionStatus, to: QuestionStatus) -> QuestionStatus:
    """The one transition rule: only an open question moves, and only out of `open`."""
    if current is not QuestionStatus.open or to is QuestionStatus.open:
        raise ValueError(f"A question cannot go from {current} to {to}")
    return to


def refusal_for(status: QuestionStatus, question_id: int) -> ParleyError:
    """Why an answer to a question that is no longer open is refused (409)."""
    if status is QuestionStatus.answered:
        return AlreadyAnswered(
            f"Question {question_id} was already answered", question_id=question_id
        )
    return QuestionClosed(
        f"Question {question_id} is {status.value.replace('_', ' ')}: it takes no answer",
        question_id=question_id,
        question_status=status.value,
    )


_ALLOW_WORDS = re.compile(r"^(allow|yes|y|ok|okay|sure|approve|go ahead|do it)\b")
_SESSION_WORDS = re.compile(r"\b(always|for this session|for the session|every time)\b")
_DENY_WORDS = re.compile(r"^(deny|no|n|don'?t|do not|stop|reject|refuse|cancel)\b")


def parse_decision(text: str) -> Decision | None:
    """What a typed or spoken reply decides ("yes", "no", "allow for this session"...);
    None when it decides nothing (it is then an ordinary message)."""
    flat = " ".join(text.lower().strip(" .!").split())
    if _DENY_WORDS.match(flat):
        return Decision.deny
    if _ALLOW_WORDS.match(flat):
        return Decision.allow_session if _SESSION_WORDS.search(flat) else Decision.allow
    return None


@dataclass(slots=True)
class QuestionState:
    question: StoredMessage
    status: str  # a QuestionStatus
    answer: StoredMessage | None
    timeout_at: datetime
    seconds_left: float  # until the question's own deadline (0 when past)
    asked_by: str | None
    run_id: int | None


def _not_found(question_id: int) -> NotFound:
    return NotFound(f"Question {question_id} not found", question_id=question_id)


_FIELDS = StoredMessage.model_fields
_Q_COLUMNS = ", ".join(f"q.{c} AS q_{c}" for c in _FIELDS)
_A_COLUMNS = ", ".join(f"a.{c} AS a_{c}" for c in _FIELDS)
_SELECT = f"""
SELECT {_Q_COLUMNS}, {_A_COLUMNS}, s.status, s.timeout_at, s.asked_by, s.run_id,
       greatest(0, extract(epoch FROM s.timeout_at - clock_timestamp()))::float8 AS seconds_left
FROM questions s JOIN messages q ON q.user_id = s.user_id AND q.id = s.message_id
LEFT JOIN messages a ON a.user_id = s.user_id AND a.id = s.answer_id
"""
_READ = _SELECT + "WHERE s.message_id = $1 AND s.user_id = $2"
_OPEN = (
    _SELECT
    + """WHERE s.user_id = $1 AND s.status = 'open' AND s.timeout_at > now()
AND ($2::text IS NULL OR s.asked_by = $2) ORDER BY s.message_id LIMIT $3"""
)


def _message(row: Any, prefix: str) -> StoredMessage | None:
    if row[f"{prefix}id"] is None:
        return None
    return StoredMessage(**{c: row[prefix + c] for c in _FIELDS})


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


class OnTimeout(StrEnum):
    """What a question nobody answers in time comes to (`question_escalations.on_timeout`)."""

    expire = "expire"  # it times out: the agent is told nobody answered
    deny = "deny"  # it is answered "deny" (a permission) or "no"
    allow = "allow"  # it is answered "allow" (a permission) or "yes"


_OVERDUE_DEFAULTS = """
SELECT s.message_id, s.conversation_id, s.user_id FROM questions s
JOIN question_escalations e ON e.user_id = s.user_id AND e.question_id = s.message_id
WHERE s.status = 'open' AND s.timeout_at <= now() AND e.on_timeout <> 'expire'
  AND ($1::bigint IS NULL OR s.message_id = $1) AND ($2::text IS NULL OR s.user_id = $2)
ORDER BY s.message_id LIMIT 50
"""
_LOCK_OVERDUE = f"""
SELECT e.on_timeout, {_Q_COLUMNS} FROM questions s
JOIN question_escalations e ON e.user_id = s.user_id AND e.question_id = s.message_id
JOIN messages q ON q.user_id = s.user_id AND q.id = s.message_id
WHERE s.user_id = $2 AND s.message_id = $1 AND s.status = 'open' AND s.timeout_at <= now()
FOR UPDATE OF s SKIP LOCKED
"""
TIMEOUT_AUTHOR = "parley:timeout"


async def decide_overdue(
    conn: asyncpg.Connection, question_id: int | None = None, *, user_id: str | None = None
) -> None:
    """Answer the overdue questions that asked for a default (`deny` or `allow`) with it,
    each exactly once: the conversation is locked first (as every answer does), then the
    question, skipped when another instance holds it, and only a still-open one moves."""
    for due in await conn.fetch(_OVERDUE_DEFAULTS, question_id, user_id):
        person = due["user_id"]
        async with conn.transaction():
            await conn.execute(
                "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE",
                due["conversation_id"],
                person,
            )
            row = await conn.fetchrow(_LOCK_OVERDUE, due["message_id"], person)
            if row is None:
                continue  # answered meanwhile, or another instance is deciding it
            question = _message(row, "q_")
            assert question is not None
            allow = row["on_timeout"] == OnTimeout.allow
            chosen = Decision.allow if allow else Decision.deny
            permission = is_permission(question.meta)
            reply = await conversations.append_message(
                conn,
                conversation_id=due["conversation_id"],
                user_id=due["user_id"],
                role=Role.system,
                author=TIMEOUT_AUTHOR,
                kind=MessageKind.answer,
                content=(DECISION_TEXT[chosen] if permission else ("yes" if allow else "no")),
                reply_to=question.id,
                meta={"decision": chosen.value, "by": "timeout"}
                if permission
                else {"by": "timeout"},
            )
            await _close(conn, person, question.id, QuestionStatus.answered, answer_id=reply.id)
            if permission:
                await conn.execute(
                    "UPDATE messages SET meta = meta || jsonb_build_object('answer', $2::text)"
                    " WHERE user_id = $3 AND id = $1",
                    question.id,
                    chosen.value,
                    person,
                )


@retry_on_reconnect
async def get_question(db: Database, *, caller: Caller, question_id: int) -> QuestionState:
    """A person sees every question of theirs; an agent only the questions it asked."""
    if not 1 <= question_id <= MAX_BIGINT:
        raise _not_found(question_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(_READ, question_id, caller.user_id)
        if row is not None and row["status"] == "open" and row["seconds_left"] <= 0:
            await expire_overdue(conn, question_id, user_id=caller.user_id)
            row = await conn.fetchrow(_READ, question_id, caller.user_id)
    if row is None or (caller.agent is not None and row["asked_by"] != caller.agent):
        raise _not_found(question_id)
    return _state(row)


def _state(row: Any) -> QuestionState:
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


def decision_of(state: QuestionState) -> Decision | None:
    """The decision an answered permission question carries (None while it is open, or
    when it closed unanswered)."""
    if state.status != QuestionStatus.answered:
        return None
    answer = str((state.question.meta or {}).get("answer"))
    return Decision(answer) if answer in Decision.__members__ else None


def is_permission(meta: dict[str, Any] | None) -> bool:
    return bool((meta or {}).get("permission"))


@dataclass(slots=True)
class Answered:
    question: StoredMessage
    answer: StoredMessage
    decision: Decision | None  # for a permission question


# The question, locked, with what deciding how it is answered needs. The conversation's row
# is locked first (`FOR UPDATE OF c`), as every other writer of a conversation does.
_LOCK = """
SELECT q.conversation_id, q.status, c.mode::text AS mode
FROM questions q JOIN conversations c ON c.user_id = q.user_id AND c.id = q.conversation_id
WHERE q.message_id = $1 AND q.user_id = $2
"""


async def answer(
    db: Database,
    *,
    caller: Caller,
    question_id: int,
    text: str | None,
    decision: Decision | None,
    max_chars: int,
    device: int | None = None,
) -> Answered:
    """Answer one of the person's questions, exactly once, by text or (a permission
    question) by a decision. An agent's token never answers for the person (403); a
    question already answered, timed out or closed refuses (409) and nothing is stored."""
    if caller.agent is not None:
        raise Forbidden(
            "Only the person answers their questions; an agent's token cannot",
            code="agent_not_allowed",
        )
    if (text is None) == (decision is None):
        raise InvalidInput("Give either text or decision", details=[{"field": "text"}])
    if text is not None:
        text = clean_text(text, max_chars=max_chars)
    if not 1 <= question_id <= MAX_BIGINT:
        raise _not_found(question_id)
    async with db.transaction() as conn:
        found = await conn.fetchrow(_LOCK, question_id, caller.user_id)
        if found is None:
            raise _not_found(question_id)
        if found["status"] != QuestionStatus.open:  # it never moves back: no lock needed
            raise refusal_for(QuestionStatus(found["status"]), question_id)
        if found["mode"] == "work":
            await conn.execute(
                "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE",
                found["conversation_id"],
                caller.user_id,
            )
        else:  # the checks (and lock) of every other write there: a finished run refuses
            try:
                await conn.execute(
                    "SELECT parley_writable($1, NULL, $2)", caller.user_id, found["conversation_id"]
                )
            except asyncpg.PostgresError as exc:
                raise refusal(exc) from exc
        row = await conn.fetchrow(
            f"""SELECT s.status, s.timeout_at <= now() AS overdue, {_Q_COLUMNS}
            FROM questions s JOIN messages q ON q.user_id = s.user_id AND q.id = s.message_id
            WHERE s.user_id = $2 AND s.message_id = $1 FOR UPDATE OF s""",
            question_id,
            caller.user_id,
        )
        assert row is not None
        status = QuestionStatus(row["status"])
        if status is QuestionStatus.open and row["overdue"]:
            status = QuestionStatus.timed_out  # closed as such by the next read or sweep
        if status is not QuestionStatus.open:
            raise refusal_for(status, question_id)
        question = _message(row, "q_")
        assert question is not None
        if is_permission(question.meta):
            chosen = decision or parse_decision(text or "")
            if chosen is None:
                raise InvalidInput(
                    'Answer a permission question with "allow", "allow for this session" or'
                    ' "deny" (or decision: allow | allow_session | deny)',
                    details=[{"field": "text"}],
                )
        elif decision is not None:
            raise InvalidInput(
                "decision answers a permission question; answer this one with text",
                details=[{"field": "decision"}],
            )
        else:
            chosen = None
        reply = await conversations.append_message(
            conn,
            conversation_id=found["conversation_id"],
            user_id=caller.user_id,
            role=Role.user,
            author=caller.user_id,
            kind=MessageKind.answer,
            content=text or DECISION_TEXT[chosen],  # type: ignore[index]
            reply_to=question_id,
            meta=(
                ({"decision": chosen.value} if chosen else {})
                | ({"device": device} if device is not None else {})
            )
            or None,
        )
        await _close(conn, caller.user_id, question_id, QuestionStatus.answered, answer_id=reply.id)
        if chosen is not None:
            await conn.execute(
                "UPDATE messages SET meta = meta || jsonb_build_object('answer', $2::text)"
                " WHERE user_id = $3 AND id = $1",
                question_id,
                chosen.value,
                caller.user_id,
            )
        await conn.execute(
            "UPDATE conversations SET last_read_id = $2"
            " WHERE user_id = $3 AND id = $1 AND last_read_id < $2",
            found["conversation_id"],
            reply.id,
            caller.user_id,
        )
    return Answered(question=question, answer=reply, decision=chosen)


async def _close(
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


async def withdraw(db: Database, *, caller: Caller, question_id: int) -> QuestionState:
    """The agent that asked takes its question back (its client cancelled the wait): the
    question closes, nobody can answer it any more, and its run stops waiting on it. A
    question no longer open stays as it is; someone else's is 404."""
    state = await get_question(db, caller=caller, question_id=question_id)
    if state.status != QuestionStatus.open:
        return state
    async with db.transaction() as conn:  # the conversation first, as every writer locks it
        await conn.execute(
            "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE",
            state.question.conversation_id,
            caller.user_id,
        )
        status = await conn.fetchval(
            "SELECT status FROM questions WHERE user_id = $2 AND message_id = $1 FOR UPDATE",
            question_id,
            caller.user_id,
        )
        if status == QuestionStatus.open:
            await _close(conn, caller.user_id, question_id, QuestionStatus.closed)
    return await get_question(db, caller=caller, question_id=question_id)


# Closing without an answer: the permission question's message says so too, so the card
# under it stops offering buttons.
_CLOSE_STALE = """
WITH closed AS (
    UPDATE questions SET status = $3, closed_at = now()
    WHERE user_id = $5 AND status = 'open' AND ($1::int IS NULL OR run_id = $1)
      AND ($2::bigint[] IS NULL OR message_id = ANY($2))
      AND NOT (message_id = ANY($4::bigint[]))
    RETURNING message_id
)
UPDATE messages m SET meta = m.meta || jsonb_build_object('closed', $3::text)
FROM closed WHERE m.user_id = $5 AND m.id = closed.message_id AND m.meta ? 'permission'
RETURNING m.id
"""


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
        rows = await conn.fetch(
            _CLOSE_STALE, run_id, question_ids, status.value, keep or [], user_id
        )
    return [row["id"] for row in rows]


async def current_permission(
    db: Database, *, user_id: str, conversation_id: int
) -> StoredMessage | None:
    """The permission question a plain message in this work conversation answers: the
    oldest open one its live run is waiting on now (in-band or parked), else None."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""SELECT {_Q_COLUMNS} FROM questions s
            JOIN messages q ON q.user_id = s.user_id AND q.id = s.message_id
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
    return _message(row, "q_") if row else None


@retry_on_reconnect
async def open_questions(db: Database, *, caller: Caller, limit: int = 100) -> list[QuestionState]:
    """What waits on the person: their open questions, wherever asked (inbox, runs, threads,
    work sessions), oldest first. An agent sees only the ones it asked."""
    async with db.connection() as conn:
        rows = await conn.fetch(_OPEN, caller.user_id, caller.agent, limit)
    return [_state(row) for row in rows]
