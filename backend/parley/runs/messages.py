"""Writing into conversations that have no assistant turn (inbox, run, delegation), by a
person or an agent, and answering the questions asked there.

Locks are taken in one order by every writer here: the conversation row (`parley_writable`),
then (inside `parley_append_message`) the conversation's advisory lock, then question and
run rows. The chat turn takes the conversation row before the advisory lock too, so the two
never deadlock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.auth import Caller
from parley.conversations import MESSAGE_COLUMNS, StoredMessage, check_id, list_messages
from parley.db import Database
from parley.errors import Forbidden, InvalidInput, NotFound, ParleyError, TooLarge
from parley.realtime.hub import Hub

# What may be posted directly; the other kinds are written by the tools that own them.
POSTABLE = frozenset({"message", "question", "answer", "status"})
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


# What `parley_writable` / `parley_post_message` (migration 0010) raise, as service errors.
_REFUSALS: dict[str, Callable[[str], ParleyError]] = {
    "PT404": lambda m: NotFound(m),
    "PT409": lambda m: Conflict(m, code="not_writable"),
    "PT410": lambda m: Conflict(m, code="run_finished"),
    "PT403": lambda m: Forbidden(m, code="not_your_run"),
    "PT422": lambda m: InvalidInput(m, details=[{"field": "reply_to"}]),
}


def refusal(exc: asyncpg.PostgresError) -> Exception:
    make = _REFUSALS.get(getattr(exc, "sqlstate", "") or "")
    return make(str(getattr(exc, "message", exc))) if make else exc


async def lock_target(
    conn: asyncpg.Connection, *, caller: Caller, conversation_id: int
) -> int | None:
    """Lock the conversation for a write (inside the caller's transaction) after checking
    that this caller may write there; returns its run's id, if it is a run's."""
    check_id(conversation_id)
    try:
        run_id: int | None = await conn.fetchval(
            "SELECT parley_writable($1, $2, $3)", caller.user_id, caller.agent, conversation_id
        )
    except asyncpg.PostgresError as exc:
        raise refusal(exc) from exc
    return run_id


_POST = f"""SELECT {", ".join(f"(p.message).{c}" for c in MESSAGE_COLUMNS.split(", "))}, p.answered
FROM parley_post_message($1, $2, $3, $4, $5, $6, $7, $8) p"""


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
    One statement (`parley_post_message`): every check, the message, the question's state,
    the run's and the read position commit together or not at all.
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
    check_id(conversation_id)
    if reply_to is not None and not 1 <= reply_to < 2**63:
        raise InvalidInput("reply_to is not a message here", details=[{"field": "reply_to"}])
    async with db.connection() as conn:
        try:
            row = await conn.fetchrow(
                _POST,
                caller.user_id,
                caller.agent,
                conversation_id,
                content,
                kind,
                reply_to,
                timeout_s or default_timeout,
                meta,
            )
        except asyncpg.PostgresError as exc:
            raise refusal(exc) from exc
    return Posted(StoredMessage(**{c: row[c] for c in StoredMessage.__slots__}), row["answered"])


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
