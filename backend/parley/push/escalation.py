"""Delivering what a question's escalation asks for (`questions.escalation`): the loop that
takes its due steps (a reminder push is enqueued by the step itself) and writes and sends the
reminder email, whose link opens the question (good once and for
`PARLEY_QUESTION_LINK_MINUTES`; it identifies the question, never signs anyone in). Also the
SMTP sending other emails use.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

import aiosmtplib

from parley.config import Settings
from parley.db import Database
from parley.push.payload import clip
from parley.questions import escalation
from parley.questions.escalation import Reminder

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Email:
    to: str
    subject: str
    body: str


def reminder_email(settings: Settings, reminder: Reminder) -> Email:
    """The reminder email of a question nobody answered, with its link."""
    link = f"{settings.web_origin}/api/question-links/{reminder.token}"
    who = reminder.author or "An agent"
    return Email(
        to=reminder.to,
        subject=clip(f"{who} is waiting for your answer", 100),
        body=(
            f"{who} asked:\n\n{clip(reminder.content, 500)}\n\n"
            f"Open the question (you will be asked to sign in if you are not):\n{link}\n\n"
            f"The link works once, for {settings.question_link_minutes:g} minutes.\n"
        ),
    )


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


async def run_forever(db: Database, settings: Settings, *, every: float) -> None:
    """Take due steps until none is left, then look again when the next is due (at most
    `every` seconds later: a question escalated on another instance is seen by then)."""
    while True:
        wait = every
        try:
            while (taken := await escalation.step(db, settings)) is not False:
                if isinstance(taken, Reminder):
                    try:
                        await send_email(settings, reminder_email(settings, taken))
                    except (aiosmtplib.SMTPException, OSError):
                        log.warning("a reminder email could not be sent", exc_info=True)
            due = await escalation.next_due(db)
            if due is not None:
                wait = min(every, max(due, 0.0) + 0.01)
        except Exception:  # the database is away...: next round
            log.warning("escalation step failed; trying again", exc_info=True)
        await asyncio.sleep(wait)
