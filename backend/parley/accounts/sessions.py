"""Web sessions: the row a browser's cookie names. Ending one deletes the row, so the next
request with that cookie (on any instance, after at most the credential cache's staleness)
finds nothing."""

from __future__ import annotations

from datetime import timedelta

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.models import MAX_BIGINT

from . import store_credentials as store
from .hashing import digest, new_secret
from .store_credentials import SessionRecord

DEVICE_MAX = 200


async def start(
    db: Database,
    *,
    user_id: str,
    device: str,
    lifetime: timedelta,
    idle: timedelta,
    replacing: str | None = None,
) -> str:
    """A new session for the account; returns the cookie value (shown to nobody else).
    `replacing`: the cookie this browser had, whose session ends (ASVS 7.2.4: a sign-in, a
    new proof of who this is, never carries an older token on). The account's sessions that
    ended by time go too."""
    secret = new_secret()
    async with db.transaction() as conn:
        if replacing:
            await store.end_session(conn, token_hash=digest(replacing[:200]))
        await store.end_expired_sessions(conn, user_id=user_id, idle=idle)
        await store.insert_session(
            conn,
            token_hash=digest(secret),
            user_id=user_id,
            device=device[:DEVICE_MAX],
            lifetime=lifetime,
        )
    return secret


async def end(db: Database, *, secret: str) -> None:
    async with db.connection() as conn:
        await store.end_session(conn, token_hash=digest(secret))


async def end_one(db: Database, *, user_id: str, session_id: int) -> None:
    if not 1 <= session_id <= MAX_BIGINT:  # ids are bigints
        raise NotFound("No such session")
    async with db.connection() as conn:
        found = await store.end_session_of(conn, user_id=user_id, session_id=session_id)
    if not found:
        raise NotFound("No such session")


async def end_others(db: Database, *, user_id: str, keep: int | None) -> int:
    """Every session of the person but `keep`; how many ended."""
    async with db.connection() as conn:
        return await store.end_sessions_of(conn, user_id=user_id, keep=keep)


async def end_everyone(db: Database, *, keep: int | None) -> int:
    """Every session of every person but `keep` (an admin's own); how many ended."""
    async with db.connection() as conn:
        return await store.end_all_sessions(conn, keep=keep)


@retry_on_reconnect
async def listed(db: Database, *, user_id: str, idle: timedelta) -> list[SessionRecord]:
    async with db.connection() as conn:
        return await store.live_sessions(conn, user_id=user_id, idle=idle)
