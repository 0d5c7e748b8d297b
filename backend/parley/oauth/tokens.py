"""Authorization codes exchanged once, and the connected app's access and refresh tokens.

Tokens are random, shown once, stored as SHA-256 digests. An access token is short-lived and
good for one resource (RFC 8707); a refresh token is rotated on use. Presenting a used code or
a rotated refresh token again is taken as a stolen one being replayed: the connected app is
revoked (with every token it holds).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

import asyncpg

from parley.accounts.credentials import ACCESS_PREFIX
from parley.accounts.hashing import digest, new_secret
from parley.db import Database, retry_on_reconnect

from . import store
from .consent import CODE_KEPT

# What a lookup answers when the credential was a replay and its connected app is now revoked
# (so the caller can drop what it remembers of the app's tokens).
Replayed = Literal["replayed"]
REPLAYED: Replayed = "replayed"
REFRESH_PREFIX = "pr_parley_"


@dataclass(frozen=True, slots=True)
class Code:
    grant_id: int
    user_id: str
    client_id: str
    code_challenge: str
    redirect_uri: str
    redirect_uri_explicit: bool
    resource: str
    scopes: list[str]
    valid_until: float  # epoch seconds


@dataclass(frozen=True, slots=True)
class Issued:
    access: str
    refresh: str
    expires_in: int


@dataclass(frozen=True, slots=True)
class Held:
    """A token as stored: whose connected app, for what, until when (epoch seconds)."""

    grant_id: int
    user_id: str
    client_id: str
    resource: str
    expires_at: float


async def revoke_grant(db: Database, *, grant_id: int) -> None:
    async with db.connection() as conn:
        await store.delete_grant(conn, grant_id=grant_id)


@retry_on_reconnect
async def load_code(db: Database, *, code: str) -> Code | Replayed | None:
    """The code, if it was issued and not used; a used one revokes its connected app."""
    async with db.connection() as conn:
        row = await store.code(conn, key=digest(code).hex(), kept=CODE_KEPT)
    if row is None:
        return None
    data: dict[str, Any] = row.data
    if data["used"]:
        await revoke_grant(db, grant_id=data["grant_id"])
        return REPLAYED
    return Code(
        grant_id=data["grant_id"],
        user_id=row.user_id,
        client_id=data["client_id"],
        code_challenge=data["code_challenge"],
        redirect_uri=data["redirect_uri"],
        redirect_uri_explicit=data["redirect_uri_explicit"],
        resource=data["resource"],
        scopes=data["scopes"],
        valid_until=row.valid_until,
    )


async def _issue(
    conn: asyncpg.Connection,
    *,
    grant_id: int,
    resource: str,
    access: timedelta,
    refresh: timedelta,
    grant_max: timedelta,
) -> Issued | None:
    """A new pair, neither outliving the consent by more than `grant_max` (ASVS 10.4.8: a
    refresh token rotated every day still ends); None once the consent is that old."""
    access_token = ACCESS_PREFIX + new_secret()
    refresh_token = REFRESH_PREFIX + new_secret()
    # What this app held and can no longer use goes (a used refresh token stays until it
    # expires, so presenting it again is still recognised).
    await store.drop_expired_tokens(conn, grant_id=grant_id)
    seconds = await store.insert_token(
        conn,
        token_hash=digest(access_token),
        grant_id=grant_id,
        kind="access",
        resource=resource,
        lifetime=access,
        grant_max=grant_max,
    )
    await store.insert_token(
        conn,
        token_hash=digest(refresh_token),
        grant_id=grant_id,
        kind="refresh",
        resource=resource,
        lifetime=refresh,
        grant_max=grant_max,
    )
    if not seconds:
        return None
    return Issued(access_token, refresh_token, int(seconds))


async def exchange_code(
    db: Database, *, code: str, access: timedelta, refresh: timedelta, grant_max: timedelta
) -> Issued | Replayed | None:
    """Tokens for the code, once: a second exchange (even a concurrent one) revokes the
    connected app. None: the app was revoked meanwhile."""
    async with db.transaction() as conn:
        data = await store.use_code(conn, key=digest(code).hex())
        if data is not None:
            if await store.grant_exists(conn, grant_id=data["grant_id"]):
                return await _issue(
                    conn,
                    grant_id=data["grant_id"],
                    resource=data["resource"],
                    access=access,
                    refresh=refresh,
                    grant_max=grant_max,
                )
            return None
        grant_id = await store.code_grant(conn, key=digest(code).hex())
    if grant_id is None:
        return None
    await revoke_grant(db, grant_id=grant_id)
    return REPLAYED


@retry_on_reconnect
async def _held(db: Database, token: str, kind: str) -> store.TokenRow | None:
    async with db.connection() as conn:
        return await store.token(conn, token_hash=digest(token), kind=kind)


def _as_held(row: store.TokenRow) -> Held:
    return Held(
        grant_id=row.grant_id,
        user_id=row.user_id,
        client_id=row.client_id,
        resource=row.resource,
        expires_at=row.expires_at,
    )


async def load_access(db: Database, *, token: str) -> Held | None:
    row = await _held(db, token, "access")
    return None if row is None else _as_held(row)


async def load_refresh(db: Database, *, token: str) -> Held | Replayed | None:
    """The refresh token if it was not rotated yet; a rotated one revokes its app."""
    row = await _held(db, token, "refresh")
    if row is None:
        return None
    if row.used:
        await revoke_grant(db, grant_id=row.grant_id)
        return REPLAYED
    return _as_held(row)


async def rotate(
    db: Database, *, token: str, access: timedelta, refresh: timedelta, grant_max: timedelta
) -> Issued | None:
    """A new pair for the refresh token, which is used up: None if it already was, or if
    the consent is older than `grant_max` (the person must allow the app again)."""
    async with db.transaction() as conn:
        row = await store.use_refresh(conn, token_hash=digest(token))
        if row is None:
            return None
        return await _issue(
            conn,
            grant_id=row.grant_id,
            resource=row.resource,
            access=access,
            refresh=refresh,
            grant_max=grant_max,
        )
