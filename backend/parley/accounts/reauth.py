"""Recent authentication (OWASP ASVS 5, V7.5): what an attacker holding a stolen or
left-open session could turn into lasting access or a locked-out owner needs a sign-in from
the last PARLEY_REAUTH_MINUTES: changing the email or setting a first password, adding or
removing a passkey, turning the authenticator app on or off, linking single sign-on, creating an
agent key, connecting an app (OAuth consent), ending other sessions.

Confirming is signing in again, by any way the account has (its password, with the
authenticator app's code when it is on; a passkey, single
sign-on with the provider asked to authenticate afresh, or dev sign-in where it is on): every
sign-in makes a new session and ends the browser's old one, so a session's start is when its
person last proved who they are (`Principal.authenticated_at`), and a `parley token` JWT's is
its `iat`."""

from __future__ import annotations

import time
from typing import NoReturn

from parley.accounts.credentials import Principal
from parley.config import Settings
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden

from . import store, store_factors


class ReauthRequired(Forbidden):
    code = "reauth_required"


def is_recent(principal: Principal, settings: Settings) -> bool:
    at = principal.authenticated_at
    return at is not None and time.time() - at <= settings.reauth_minutes * 60


@retry_on_reconnect
async def methods(db: Database, *, user_id: str, settings: Settings) -> list[str]:
    """How this person can sign in again: what the confirmation can offer."""
    account = await store.get(db, user_id=user_id)
    if account is None:
        return ["dev"] if settings.dev_login else []
    async with db.connection() as conn:
        has_passkey = await store_factors.has_passkey(conn, user_id=user_id)
    found = []
    if account.password_hash is not None:
        found.append("password")
    if has_passkey:
        found.append("passkey")
    if account.oidc_subject is not None and settings.oidc_enabled:
        found.append("sso")
    if settings.dev_login:
        found.append("dev")
    return found


async def refuse(db: Database, *, user_id: str, settings: Settings) -> NoReturn:
    """403 `reauth_required`, saying how the person can confirm it is them."""
    minutes = settings.reauth_minutes
    raise ReauthRequired(
        f"Confirm it is you: sign in again to do this (a sign-in from the last {minutes:g}"
        " minutes is needed)",
        methods=await methods(db, user_id=user_id, settings=settings),
        within_minutes=minutes,
    )


async def require_recent(db: Database, *, principal: Principal, settings: Settings) -> None:
    if not is_recent(principal, settings):
        await refuse(db, user_id=principal.caller.user_id, settings=settings)
