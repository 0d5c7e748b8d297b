"""Writing into conversations that have no assistant turn (inbox, run, delegation), by a
person or an agent, and answering the questions asked there.

Locks are taken in one order by every writer here: the conversation row, then (inside
`append_message`) the conversation's advisory lock, then question and run rows. The chat
turn takes the conversation row before the advisory lock too, so the two never deadlock.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import (
    StoredMessage,
    append_message,
    check_id,
    list_messages,
    not_found,
)
from parley.db import Database
from parley.errors import Forbidden, InvalidInput, ParleyError, TooLarge
from parley.models import ConversationMode, MessageKind, Role
from parley.realtime.hub import Hub

# What may be posted directly; the other kinds are written by the tools that own them.
POSTABLE = frozenset({"message", "question", "answer", "status"})
WRITABLE_MODES = frozenset(
    {ConversationMode.inbox.value, ConversationMode.run.value, ConversationMode.delegation.value}
)
FINISHED = frozenset({"completed", "failed", "cancelled", "timed_out"})
MAX_TIMEOUT = 7 * 24 * 3600.0


class Conflict(ParleyError):
    status = 409
    code = "conflict"


def clean_text(text: str, *, max_chars: int, field: str = "text") -> str:
    """Trimmed, never empty, within the size limit, storable (no NUL)."""
    cleaned = text.strip() if isinstance(text, str) else ""
    if not cleaned:
        raise InvalidInput(f"{field} must not be empty", details=[{"field": field}])
    if len(cleaned) > max_chars:
        raise TooLarge(f"{field} is longer than {max_chars} characters", limit=max_chars)
    if "\x00" in cleaned:
        raise InvalidInput(f"{field} must not contain NUL characters", details=[{"field": field}])
    return cleaned


@dataclass(slots=True)
class Posted:
    message: StoredMessage
    answered: int | None  # the question this message answered, if any


@dataclass(slots=True)
class Target:
    """A conversation locked for writing, and the run it belongs to (if any)."""

    conversation_id: int
    mode: str
    run_id: int | None
    run_agent: str | None
    run_status: str | None


async def lock_target(conn: asyncpg.Connection, *, caller: Caller, conversation_id: int) -> Target:
    """Lock the conversation for a write and check that this caller may write there."""
    check_id(conversation_id)
    row = await conn.fetchrow(
        "SELECT c.mode, r.id, r.agent, r.status FROM conversations c"
        " LEFT JOIN agent_runs r ON r.conversation_id = c.id"
        " WHERE c.id = $1 AND c.user_id = $2 FOR UPDATE OF c",
        conversation_id,
        caller.user_id,
    )
    if row is None:
        raise not_found(conversation_id)
    target = Target(conversation_id, row[0], row[1], row[2], row[3])
    if target.mode not in WRITABLE_MODES:
        raise Conflict(
            f"A {target.mode} conversation takes messages through POST /chat",
            code="not_writable",
            conversation_id=conversation_id,
        )
    if target.run_status in FINISHED:
        raise Conflict(
            f"Run {target.run_id} has ended ({target.run_status}); its conversation is read-only",
            code="run_finished",
            run_id=target.run_id,
        )
    if caller.agent is not None and target.run_agent not in (None, caller.agent):
        raise Forbidden(
            f"Run {target.run_id} belongs to agent {target.run_agent}",
            code="not_your_run",
            run_id=target.run_id,
        )
    return target


async def post_message(
    db: Database,
    *,
    caller: Caller,
    conversation_id: int,
    text: str,
    max_chars: int,
    kind: str = "message",
    reply_to: int | None = None,
    timeout_s: float | None = None,
    default_timeout: float = 3600.0,
    meta: dict[str, Any] | None = None,
) -> Posted:
    """Store a message as the caller (`role=agent, author=<agent>` or `role=user`).

    A question (agents only) opens a wait that the person answers. A person's message
    answers the question it replies to, or, if it replies to nothing, the oldest open
    question in the conversation; it is then stored as `kind=answer` with `reply_to` set.
    """
    content = clean_text(text, max_chars=max_chars)
    if kind not in POSTABLE:
        raise InvalidInput(f"kind must be one of {sorted(POSTABLE)}", details=[{"field": "kind"}])
    if kind == "question" and caller.agent is None:
        raise InvalidInput(
            "Only agents ask questions; a person's message is kind=message",
            details=[{"field": "kind"}],
        )
    if timeout_s is not None and (kind != "question" or not 0 < timeout_s <= MAX_TIMEOUT):
        raise InvalidInput(
            f"timeout_s is for questions, 0 < timeout_s <= {int(MAX_TIMEOUT)}",
            details=[{"field": "timeout_s"}],
        )
    async with db.transaction() as conn:
        target = await lock_target(conn, caller=caller, conversation_id=conversation_id)
        if reply_to is not None:
            await _check_reply_to(conn, conversation_id=conversation_id, reply_to=reply_to)
        answered = None
        if caller.agent is None and kind in ("message", "answer"):
            answered = await _open_question(
                conn, conversation_id=conversation_id, reply_to=reply_to
            )
        stored = await append_message(
            conn,
            conversation_id=conversation_id,
            user_id=caller.user_id,
            role=Role(caller.role),
            author=caller.author,
            kind=MessageKind.answer if answered is not None else MessageKind(kind),
            content=content,
            reply_to=answered if answered is not None else reply_to,
            meta=meta,
        )
        if answered is not None:
            await _answer(conn, question_id=answered, answer_id=stored.id)
        if kind == "question":
            await conn.execute(
                "INSERT INTO questions (message_id, user_id, conversation_id, run_id, asked_by,"
                " timeout_at) VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))",
                stored.id,
                caller.user_id,
                conversation_id,
                target.run_id,
                caller.agent,
                timeout_s or default_timeout,
            )
        if target.run_id is not None and caller.agent is not None:
            await conn.execute(
                "UPDATE agent_runs SET last_activity_at = now(),"
                " status = CASE WHEN $2 THEN 'waiting_input'::run_status ELSE status END"
                " WHERE id = $1",
                target.run_id,
                kind == "question",
            )
        if caller.agent is None:  # what the person writes, they have read up to
            await conn.execute(
                "UPDATE conversations SET last_read_id = $2 WHERE id = $1 AND last_read_id < $2",
                conversation_id,
                stored.id,
            )
    return Posted(stored, answered)


async def _check_reply_to(conn: asyncpg.Connection, *, conversation_id: int, reply_to: int) -> None:
    found = (
        await conn.fetchval(
            "SELECT 1 FROM messages WHERE id = $1 AND conversation_id = $2",
            reply_to,
            conversation_id,
        )
        if 1 <= reply_to < 2**63
        else None
    )
    if found is None:
        raise InvalidInput(
            f"reply_to {reply_to} is not a message of conversation {conversation_id}",
            details=[{"field": "reply_to"}],
        )


async def _open_question(
    conn: asyncpg.Connection, *, conversation_id: int, reply_to: int | None
) -> int | None:
    """The question this message answers: the one it replies to if that one is open, else
    (a plain message) the oldest open question here. Locked until the answer is stored."""
    if reply_to is not None:
        found: int | None = await conn.fetchval(
            "SELECT message_id FROM questions WHERE message_id = $1 AND status = 'open'"
            " AND timeout_at > now() FOR UPDATE",
            reply_to,
        )
        return found
    oldest: int | None = await conn.fetchval(
        "SELECT message_id FROM questions WHERE conversation_id = $1 AND status = 'open'"
        " AND timeout_at > now() ORDER BY message_id LIMIT 1 FOR UPDATE",
        conversation_id,
    )
    return oldest


# The run goes back to `running` once none of its questions is open any more.
_ANSWER = """
WITH answered AS (
    UPDATE questions SET status = 'answered', answer_id = $2, closed_at = now()
    WHERE message_id = $1 RETURNING run_id
)
UPDATE agent_runs r SET status = 'running', last_activity_at = now()
FROM answered a
WHERE r.id = a.run_id AND r.status = 'waiting_input'
  AND NOT EXISTS (SELECT 1 FROM questions q
                  WHERE q.run_id = r.id AND q.status = 'open' AND q.message_id <> $1)
"""


async def _answer(conn: asyncpg.Connection, *, question_id: int, answer_id: int) -> None:
    await conn.execute(_ANSWER, question_id, answer_id)


async def wait_for_messages(
    db: Database,
    hub: Hub,
    *,
    user_id: str,
    conversation_id: int,
    after: int,
    wait_s: float,
    limit: int = 100,
) -> list[StoredMessage]:
    """Messages after `after` at once if there are any, else the first ones to arrive (from
    any instance) within `wait_s` seconds, else an empty list. 404 if not the user's."""
    found = await list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )
    if found or wait_s <= 0:
        return found
    watcher = await hub.subscribe(conversation_id, after)
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                while (await watcher.get())[0] != "message":
                    pass
    finally:
        hub.unsubscribe(watcher)
    return await list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )
