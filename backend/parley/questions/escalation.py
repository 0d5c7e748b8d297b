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
from parley.messages import store as messages
from parley.questions import store

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


# Steps that are due, everyone's (each node answers from its partial index of them): each
# is then taken by itself, a statement about one person's rows.
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
        candidates = await conn.fetch(_DUE)
    for candidate in candidates:
        person, question_id = candidate["user_id"], candidate["question_id"]
        if not candidate["open"]:
            async with db.connection() as conn:
                await conn.execute(_SETTLED, person, question_id)
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
        due = await conn.fetchrow(_CLAIM, user_id, question_id)
        if due is None:
            return False
        if due["stage"] == 0:
            await conn.execute(
                "SELECT parley_push_enqueue($1, 'reminder', $2, $3)",
                due["user_id"],
                due["question_id"],
                due["conversation_id"],
            )
            await conn.execute(
                "UPDATE question_escalations SET stage = 1,"
                " next_at = now() + make_interval(secs => $3)"
                " WHERE user_id = $2 AND question_id = $1",
                due["question_id"],
                user_id,
                # Not computed from the column in SQL: Citus refuses the clock combined with
                # a column in an UPDATE's SET.
                due["remind_after"] * 60,
            )
            return None
        await conn.execute(
            "UPDATE question_escalations SET stage = 2, next_at = NULL"
            " WHERE user_id = $2 AND question_id = $1",
            due["question_id"],
            user_id,
        )
        if not (settings.smtp_url and due["email"] and due["email_ok"] and not due["muted"]):
            return None
        token = secrets.token_urlsafe(32)
        await conn.execute(
            "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
            " VALUES ($1, $2, $3, $4::jsonb, now() + make_interval(secs => $5))",
            _hash(token),
            LINK_PURPOSE,
            due["user_id"],
            {"question_id": due["question_id"], "conversation_id": due["conversation_id"]},
            settings.question_link_minutes * 60,
        )
    return Reminder(to=due["email"], author=due["author"], content=due["content"], token=token)


async def next_due(db: Database) -> float | None:
    """Seconds until the next step is due (None when none is waiting)."""
    async with db.connection() as conn:
        due: float | None = await conn.fetchval(
            "SELECT extract(epoch FROM min(next_at) - now())::float8"
            " FROM question_escalations WHERE next_at IS NOT NULL"
        )
    return due


def _hash(token: str) -> str:
    return "ql:" + hashlib.sha256(token.encode()).hexdigest()


@retry_on_reconnect
async def open_link(db: Database, *, token: str) -> dict[str, Any]:
    """Use an emailed link (once): which question it opens. Used, expired or unknown: 404."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "DELETE FROM auth_challenges WHERE id = $1 AND purpose = $2 RETURNING data,"
            " expires_at > now() AS fresh",
            _hash(token[:200]),
            LINK_PURPOSE,
        )
    if row is None or not row["fresh"]:
        raise NotFound("This link was used already or has expired", code="link_expired")
    data: dict[str, Any] = row["data"]
    return data
