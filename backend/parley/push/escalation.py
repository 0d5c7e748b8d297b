"""When nobody answers: a reminder push after `remind_after` minutes, an email after as many
again, and at the deadline the question's own default (`on_timeout`, applied by
`runs.questions.decide_overdue`).

Each step is a row (`question_escalations`: stage and when the next is due) claimed with
`FOR UPDATE SKIP LOCKED` and moved in the same transaction that enqueues its push, so it
happens once across instances and restarts. The email carries a link that opens the
question: a random token kept only as its hash, good once and for
`PARLEY_QUESTION_LINK_MINUTES`; it identifies the question, never signs anyone in.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any
from urllib.parse import unquote, urlsplit

import aiosmtplib

from parley.config import Settings
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.push.payload import clip
from parley.runs.questions import OnTimeout

log = logging.getLogger(__name__)

LINK_PURPOSE = "question_link"
MAX_REMIND_MINUTES = 7 * 24 * 60


def check(on_timeout: str | None, remind_after: float | None) -> tuple[OnTimeout, float | None]:
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
    return chosen, remind_after


@retry_on_reconnect
async def escalate(
    db: Database,
    *,
    user_id: str,
    question_id: int,
    on_timeout: str | None,
    remind_after: float | None,
) -> None:
    """Give a stored question its default and its reminder (nothing to store for a plain
    `expire` without a reminder: that is every question's behaviour)."""
    chosen, remind = check(on_timeout, remind_after)
    if chosen is OnTimeout.expire and remind is None:
        return
    async with db.connection() as conn:
        await conn.execute(
            """INSERT INTO question_escalations (question_id, user_id, on_timeout, remind_after,
                next_at)
            VALUES ($1, $4, $2, $3, CASE WHEN $3::float8 IS NULL THEN NULL
                                         ELSE now() + make_interval(secs => $3::float8 * 60) END)
            ON CONFLICT (user_id, question_id) DO UPDATE SET on_timeout = EXCLUDED.on_timeout,
                remind_after = EXCLUDED.remind_after, next_at = EXCLUDED.next_at""",
            question_id,
            chosen.value,
            remind,
            user_id,
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
_CLAIM = """
SELECT e.question_id, e.user_id, e.stage, e.remind_after, s.conversation_id,
       m.content, m.author,
       -- Only an address its person proved is theirs: anyone may type someone else's.
       CASE WHEN a.email_verified_at IS NOT NULL THEN a.email END AS email,
       coalesce(p.email_reminders, true) AS email_ok,
       EXISTS (SELECT 1 FROM conversation_mutes c
               WHERE c.user_id = $1 AND c.conversation_id = s.conversation_id) AS muted
FROM question_escalations e
JOIN questions s ON s.user_id = $1 AND s.message_id = e.question_id
JOIN messages m ON m.user_id = $1 AND m.id = e.question_id
LEFT JOIN accounts a ON a.user_id = e.user_id
LEFT JOIN notification_prefs p ON p.user_id = $1
WHERE e.user_id = $1 AND e.question_id = $2 AND e.next_at <= now() AND s.status = 'open'
FOR UPDATE OF e SKIP LOCKED
"""


@dataclass(slots=True)
class Email:
    to: str
    subject: str
    body: str


async def step(db: Database, settings: Settings) -> Email | bool | None:
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
) -> Email | bool | None:
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
    link = f"{settings.web_origin}/api/question-links/{token}"
    who = due["author"] or "An agent"
    return Email(
        to=due["email"],
        subject=clip(f"{who} is waiting for your answer", 100),
        body=(
            f"{who} asked:\n\n{clip(due['content'], 500)}\n\n"
            f"Open the question (you will be asked to sign in if you are not):\n{link}\n\n"
            f"The link works once, for {settings.question_link_minutes:g} minutes.\n"
        ),
    )


def _hash(token: str) -> str:
    return "ql:" + hashlib.sha256(token.encode()).hexdigest()


async def send_email(settings: Settings, email: Email) -> None:
    assert settings.smtp_url
    url = urlsplit(settings.smtp_url)
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = email.to
    message["Subject"] = email.subject
    message.set_content(email.body)
    await aiosmtplib.send(
        message,
        hostname=url.hostname or "localhost",
        port=url.port or (465 if url.scheme == "smtps" else 25),
        username=unquote(url.username) if url.username else None,
        password=unquote(url.password) if url.password else None,
        use_tls=url.scheme == "smtps",
        start_tls=None if url.scheme == "smtps" else False if url.hostname in _LOCAL else None,
        timeout=settings.push_timeout,
    )


_LOCAL = {"127.0.0.1", "localhost", "::1"}


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


async def run_forever(db: Database, settings: Settings, *, every: float) -> None:
    """Take due steps until none is left, then look again when the next is due (at most
    `every` seconds later: a question escalated on another instance is seen by then)."""
    while True:
        wait = every
        try:
            while (taken := await step(db, settings)) is not False:
                if isinstance(taken, Email):
                    try:
                        await send_email(settings, taken)
                    except (aiosmtplib.SMTPException, OSError):
                        log.warning("a reminder email could not be sent", exc_info=True)
            async with db.connection() as conn:
                due = await conn.fetchval(
                    "SELECT extract(epoch FROM min(next_at) - now())::float8"
                    " FROM question_escalations WHERE next_at IS NOT NULL"
                )
            if due is not None:
                wait = min(every, max(due, 0.0) + 0.01)
        except Exception:  # the database is away...: next round
            log.warning("escalation step failed; trying again", exc_info=True)
        await asyncio.sleep(wait)
