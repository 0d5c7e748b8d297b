"""When nobody answers: a reminder push after `remind_after` minutes, an email after as many
again, and at the deadline the question's own default (`on_timeout`, applied by
`expiry.decide_overdue`).

Each step is a row (`question_escalations`: stage and when the next is due) claimed with
`FOR UPDATE SKIP LOCKED` and moved in the same transaction that enqueues its push, so it
happens once across instances and restarts. The email step hands back whom to write and a
link token (`push.escalation` writes and sends it): a random token kept only as its hash,
good once and for `PARLEY_QUESTION_LINK_MINUTES`; it identifies the question, never signs
anyone in.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from parley.config import Settings
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.questions import store, store_deadlines

LINK_PURPOSE = "question_link"
MAX_REMIND_MINUTES = 7 * 24 * 60


class OnTimeout(StrEnum):
    """What a question nobody answers in time comes to (`question_escalations.on_timeout`)."""

    expire = "expire"  # it times out: the agent is told nobody answered
    deny = "deny"  # it is answered "deny" (a permission) or "no"
    allow = "allow"  # it is answered "allow" (a permission) or "yes"


@dataclass(frozen=True, slots=True)
class Escalation:
    """What a question asks for if nobody answers: checked (`check`) before anything is
    stored."""

    on_timeout: OnTimeout = OnTimeout.expire
    remind_after: float | None = None  # minutes

    @property
    def stored(self) -> bool:
        """Nothing to store for a plain `expire` without a reminder: that is every
        question's behaviour."""
        return self.on_timeout is not OnTimeout.expire or self.remind_after is not None


def check(on_timeout: str | None, remind_after: float | None) -> Escalation:
    """The escalation a question asks for, checked (a clear 422 otherwise)."""
    try:
        chosen = OnTimeout(on_timeout or OnTimeout.expire)
    except ValueError:
        raise InvalidInput(
            "on_timeout must be one of expire, deny, allow", details=[{"field": "on_timeout"}]
        ) from None
    if remind_after is not None and not 0 < remind_after <= MAX_REMIND_MINUTES:
        raise InvalidInput(
            f"remind_after must be more than 0 and at most {MAX_REMIND_MINUTES} minutes",
            details=[{"field": "remind_after"}],
        )
    return Escalation(chosen, remind_after)


@retry_on_reconnect
async def escalate(
    db: Database,
    *,
    user_id: str,
    question_id: int,
    on_timeout: str | None,
    remind_after: float | None,
) -> None:
    """Give a stored question its default and its reminder (`ask` does it as it asks)."""
    chosen = check(on_timeout, remind_after)
    if not chosen.stored:
        return
    async with db.connection() as conn:
        await store.set_escalation(
            conn,
            user_id=user_id,
            question_id=question_id,
            on_timeout=chosen.on_timeout.value,
            remind_after=chosen.remind_after,
        )


@dataclass(slots=True)
class Reminder:
    """A reminder email due: to whom, about which question, and the link's token."""

    to: str
    author: str | None  # who asked
    content: str  # what they asked
    token: str


async def step(db: Database, settings: Settings) -> Reminder | bool | None:
    """Take one due step: False when none is due; else the email to send (or None)."""
    async with db.connection() as conn:
        candidates = await store_deadlines.due_steps(conn)
    for candidate in candidates:
        person, question_id = candidate["user_id"], candidate["question_id"]
        if not candidate["open"]:
            async with db.connection() as conn:
                await store_deadlines.settle(conn, user_id=person, question_id=question_id)
            continue
        taken = await _take(db, settings, person, question_id)
        if taken is not False:
            return taken
    return False


async def _take(
    db: Database, settings: Settings, user_id: str, question_id: int
) -> Reminder | bool | None:
    """The step of this escalation, unless another instance holds it or it moved on
    (False); else the email to send, or None."""
    async with db.transaction() as conn:
        due = await store_deadlines.take_step(conn, user_id=user_id, question_id=question_id)
        if due is None:
            return False
        if due["stage"] == 0:
            await store_deadlines.remind(
                conn,
                user_id=user_id,
                question_id=due["question_id"],
                conversation_id=due["conversation_id"],
                next_in_s=due["remind_after"] * 60,
            )
            return None
        await store_deadlines.last_step(conn, user_id=user_id, question_id=due["question_id"])
        if not (settings.smtp_url and due["email"] and due["email_ok"] and not due["muted"]):
            return None
        token = secrets.token_urlsafe(32)
        await store_deadlines.keep_link(
            conn,
            key=_hash(token),
            purpose=LINK_PURPOSE,
            user_id=due["user_id"],
            data={"question_id": due["question_id"], "conversation_id": due["conversation_id"]},
            ttl_s=settings.question_link_minutes * 60,
        )
    return Reminder(to=due["email"], author=due["author"], content=due["content"], token=token)


async def next_due(db: Database) -> float | None:
    """Seconds until the next step is due (None when none is waiting)."""
    async with db.connection() as conn:
        return await store_deadlines.next_due(conn)


def _hash(token: str) -> str:
    return "ql:" + hashlib.sha256(token.encode()).hexdigest()


@retry_on_reconnect
async def open_link(db: Database, *, token: str) -> dict[str, Any]:
    """Use an emailed link (once): which question it opens. Used, expired or unknown: 404."""
    async with db.connection() as conn:
        row = await store_deadlines.use_link(conn, key=_hash(token[:200]), purpose=LINK_PURPOSE)
    if row is None or not row["fresh"]:
        raise NotFound("This link was used already or has expired", code="link_expired")
    data: dict[str, Any] = row["data"]
    return data
