"""Which account a single sign-on identity signs in to, so that nobody can prepare an account
for someone else's identity to land in (pre-hijacking).

An identity joins an existing account in two ways only: the account's email is verified and
is the identity's provider-verified email, or the person links it while signed in to the
account. Anything else (an account with the same user name, or the same email unverified) is
somebody's claim, not proof: the identity gets a new account of its own, and the sign-in
says why. Everything for one identity happens under one transaction-scoped advisory lock, so
two callbacks at once (two tabs, two instances) make one account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.auth import NEW_USER_ID_RE
from parley.db import Database
from parley.errors import InvalidInput, ParleyError

from . import invites, store
from .store import AccountRecord, EmailTaken, UserIdTaken, clean_email

# What a sign-in that made a new account although one here has its name or email says.
NEW_ACCOUNT = "sso_new_account"


class OidcFailed(ParleyError):
    status = 401
    code = "oidc_failed"


@dataclass(frozen=True, slots=True)
class Resolved:
    user_id: str
    notice: str | None = None


def verified_email(claims: dict[str, Any]) -> str | None:
    """The identity's email if its provider says it is verified (else none), normalised."""
    email = claims.get("email")
    if claims.get("email_verified") is not True or not isinstance(email, str):
        return None
    try:
        return clean_email(email)
    except InvalidInput:
        return None


def candidate(claims: dict[str, Any]) -> str:
    """A user id from the provider's user name or the email's local part, made valid: never
    with '@' (a user name is not an email)."""
    for raw in (claims.get("preferred_username"), str(claims.get("email") or "").split("@")[0]):
        if isinstance(raw, str):
            cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", raw).strip("-.")[:56]
            if cleaned and NEW_USER_ID_RE.fullmatch(cleaned):
                return cleaned
    return "user"


def usable(account: AccountRecord) -> str:
    if account.disabled:
        raise OidcFailed("This account is disabled", code="account_disabled")
    return account.user_id


async def account_for(
    db: Database,
    *,
    claims: dict[str, Any],
    subject: str,
    invite: str | None,
    signup: str,
    link_to: str | None = None,
) -> Resolved:
    """The account `subject` (issuer#sub) signs in to: the one linked to it; with `link_to`,
    that signed-in account, now linked; else a new one through an invite carried in the
    flow; else the account whose verified email is the identity's verified email (and is
    linked to no other identity), now linked; else, with sign-up open, a new account."""
    email = verified_email(claims)
    async with db.transaction() as conn:
        await store.lock_identity(conn, subject=subject)
        linked = await store.by_subject(conn, subject=subject)
        if link_to is not None:
            return Resolved(await _link(conn, user_id=link_to, subject=subject, linked=linked))
        if linked is not None:
            return Resolved(usable(linked))
        if invite:
            found_invite = await invites.find(db, token=invite)
            user_id, _ = await _create(
                conn,
                names=[found_invite.user_id] if found_invite.user_id else _names(claims),
                email=found_invite.email or email,
                is_admin=found_invite.is_admin,
                subject=subject,
                invite=invite,
            )
            return Resolved(user_id)
        if email is not None:
            joined = await store.join_by_verified_email(conn, email=email, subject=subject)
            if joined is not None:
                if joined.disabled:
                    raise OidcFailed("This account is disabled", code="account_disabled")
                return Resolved(joined.user_id)
        if signup != "open":
            raise OidcFailed(
                "No account here is linked to this sign-in; ask an admin for an invite",
                code="oidc_no_account",
            )
        similar = email is not None and await store.email_exists(conn, email=email)
        user_id, renamed = await _create(
            conn, names=_names(claims), email=email, is_admin=False, subject=subject
        )
        return Resolved(user_id, NEW_ACCOUNT if similar or renamed else None)


def _names(claims: dict[str, Any]) -> list[str]:
    base = candidate(claims)
    return [base, *(f"{base}-{n}" for n in range(2, 100))]


async def _create(
    conn: asyncpg.Connection,
    *,
    names: list[str],
    email: str | None,
    is_admin: bool,
    subject: str,
    invite: str | None = None,
) -> tuple[str, bool]:
    """A new account linked to `subject` under the first free name (and whether that was
    not the first choice), with the email as verified unless another account verified it
    (then without). An invite is used in the same transaction."""
    for n, user_id in enumerate(names):
        if len(names) > 1 and await store.taken(conn, user_id=user_id):
            continue
        try:
            async with conn.transaction():  # a savepoint: a name taken meanwhile, try the next
                if invite is not None:
                    await invites.consume(conn, token=invite, user_id=user_id)
                await _insert(conn, user_id, email, is_admin, subject)
        except UserIdTaken:
            if len(names) == 1:
                raise
            continue
        return user_id, n > 0
    raise OidcFailed("Could not find a free user name; ask an admin for an invite")


async def _insert(
    conn: asyncpg.Connection, user_id: str, email: str | None, is_admin: bool, subject: str
) -> None:
    try:
        async with conn.transaction():
            await store.create(
                None,
                user_id=user_id,
                email=email,
                email_verified=True,
                is_admin=is_admin,
                oidc_subject=subject,
                conn=conn,
            )
    except EmailTaken:
        await store.create(
            None,
            user_id=user_id,
            is_admin=is_admin,
            oidc_subject=subject,
            conn=conn,
        )


async def _link(
    conn: asyncpg.Connection, *, user_id: str, subject: str, linked: AccountRecord | None
) -> str:
    """The person, signed in to `user_id`, links the identity to it explicitly."""
    if linked is not None:
        if linked.user_id == user_id:
            return user_id
        raise OidcFailed(
            "This single sign-on identity is already linked to another account",
            code="sso_taken",
        )
    account = await store.locked(conn, user_id=user_id)
    if account is None:
        raise OidcFailed("This account no longer exists", code="sso_link_failed")
    usable(account)
    if account.oidc_subject is not None:
        raise OidcFailed(
            "This account is already linked to another single sign-on identity",
            code="sso_already_linked",
        )
    await store.set_subject(conn, user_id=user_id, subject=subject)
    return user_id
