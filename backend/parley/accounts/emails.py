"""An account's email, and proving it is the person's: a link mailed there that works once,
for a while, and only in a browser signed in to the account that asked for it.

Only a verified email signs in by email or lets a single sign-on join the account, so an
address typed by someone who does not receive its mail gives them nothing. The link's
token is kept as a digest (in `auth_challenges`, like every secret in flight) and travels in
the web UI's page path and then a POST body, never in a URL the API logs. The mail goes out
through the SMTP sending the reminder emails use (`push.escalation.send_email`).
"""

from __future__ import annotations

import logging
from typing import Any

import aiosmtplib

from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden, NotFound, ParleyError, RateLimited
from parley.push.escalation import Email, send_email

from . import store, store_challenges
from .hashing import digest, new_secret
from .store import AccountRecord, EmailTaken, clean_email

log = logging.getLogger(__name__)

PURPOSE = "email_verify"
RESEND_SECONDS = 60  # one link a minute per account: a mailbox is not a free megaphone


class NoAccount(ParleyError):
    status = 404
    code = "no_account"


def _key(token: str) -> str:
    return "ev:" + digest(token[:200]).hex()


async def _account(db: Database, user_id: str) -> AccountRecord:
    account = await store.get(db, user_id=user_id)
    if account is None:
        raise NoAccount("This user has no account")
    return account


async def set_email(db: Database, *, user_id: str, email: str | None) -> AccountRecord:
    """A new email (or none) is unverified, and links sent for the old one stop working;
    the same email again changes nothing. 409 `email_taken` when another account verified
    it (this one could never verify it)."""
    cleaned = clean_email(email)
    account = await _account(db, user_id)
    if cleaned == account.email:
        return account
    async with db.transaction() as conn:
        if cleaned is not None and await store.verified_elsewhere(
            conn, email=cleaned, user_id=user_id
        ):
            raise EmailTaken()
        await store.set_email(conn, user_id=user_id, email=cleaned)
        await store_challenges.drop_all(conn, purpose=PURPOSE, user_id=user_id)
    return await _account(db, user_id)


async def send_link(db: Database, *, settings: Settings, user_id: str) -> AccountRecord:
    """Mails a one-time link to the account's email. 404 `email_not_configured` without a
    mail server; 409 `no_email` / `already_verified`; 429 within a minute of the last one;
    502 `email_failed` when the mail server refused it (then nothing is left behind)."""
    if not settings.smtp_url:
        raise NotFound("This server sends no email", code="email_not_configured")
    token = new_secret()
    async with db.transaction() as conn:
        # The account's row, locked: two clicks at once send one mail.
        account = await store.locked(conn, user_id=user_id)
        if account is None:
            raise NoAccount("This user has no account")
        email = account.email
        if email is None:
            raise ParleyError("Add an email to the account first", code="no_email", status=409)
        if account.email_verified_at is not None:
            raise ParleyError("This email is verified already", code="already_verified", status=409)
        since = await store_challenges.seconds_since_sent(conn, purpose=PURPOSE, user_id=user_id)
        if since is not None and since < RESEND_SECONDS:
            wait = max(1, int(RESEND_SECONDS - since + 0.999))
            raise RateLimited(
                f"A link was sent less than a minute ago; try again in {wait} s",
                retry_after_seconds=wait,
            )
        await store_challenges.drop_all(conn, purpose=PURPOSE, user_id=user_id)
        await store_challenges.remember_email_link(
            conn,
            key=_key(token),
            purpose=PURPOSE,
            user_id=user_id,
            email=email,
            seconds=settings.email_link_minutes * 60,
        )
    minutes = f"{settings.email_link_minutes:g}"
    mail = Email(
        to=email,
        subject="Verify your email for Parley",
        body=(
            f"Someone signed in to the Parley account {user_id!r} asked to verify this email.\n\n"
            f"If it was you, open this link while signed in to that account:\n"
            f"{settings.web_origin}/verify-email/{token}\n\n"
            f"It works once, for {minutes} minutes. If it was not you, ignore this email:"
            " nothing changes unless the link is opened by that account.\n"
        ),
    )
    try:
        await send_email(settings, mail)
    except (aiosmtplib.SMTPException, OSError) as exc:
        log.warning("a verification email could not be sent: %s", type(exc).__name__)
        async with db.connection() as conn:
            await store_challenges.drop(conn, key=_key(token))
        raise ParleyError(
            "The mail server did not take the email; try again later",
            code="email_failed",
            status=502,
        ) from exc
    return await _account(db, user_id)


async def verify(db: Database, *, user_id: str, token: str) -> AccountRecord:
    """Uses the link (once) for the signed-in account that asked for it. Another account's
    link is 403 `wrong_account` and stays usable by its own (a link mailed to someone who
    is signed in elsewhere, or a phishing attempt, verifies nothing); unknown, used, expired
    or for an email the account no longer has: 404 `link_expired`."""
    async with db.transaction() as conn:
        link = await store_challenges.lock(conn, key=_key(token), purpose=PURPOSE)
        if link is None or not link.fresh:
            raise NotFound("This link was used already or has expired", code="link_expired")
        if link.user_id != user_id:
            raise Forbidden(
                "This link verifies another account's email: open it signed in to the account"
                " that asked for it",
                code="wrong_account",
            )
        data: dict[str, Any] = link.data
        await store_challenges.drop(conn, key=_key(token))
        if not await store.mark_verified(conn, user_id=user_id, email=data["email"]):
            raise NotFound(
                "This link was for an email the account no longer has", code="link_expired"
            )
    return await _account(db, user_id)
