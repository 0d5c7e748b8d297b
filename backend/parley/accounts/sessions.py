"""Web sessions: the row a browser's cookie names. Ending one deletes the row, so the next
request with that cookie (on any instance, after at most the credential cache's staleness)
finds nothing."""

from __future__ import annotations

from datetime import timedelta

from pydantic import ConfigDict

from parley.accounts.schemas import SessionShown
from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.models import MAX_BIGINT

from .hashing import digest, new_secret

DEVICE_MAX = 200


class SessionRecord(SessionShown):
    """A row of `web_sessions` (its digest left out), validated by column name."""

    model_config = ConfigDict(frozen=True)


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
            await conn.execute(
                "DELETE FROM web_sessions WHERE token_hash = $1", digest(replacing[:200])
            )
        await conn.execute(
            "DELETE FROM web_sessions WHERE user_id = $1"
            " AND (expires_at <= now() OR last_seen_at <= now() - $2::interval)",
            user_id,
            idle,
        )
        await conn.execute(
            "INSERT INTO web_sessions (token_hash, user_id, device, expires_at)"
            " VALUES ($1, $2, $3, now() + $4)",
            digest(secret),
            user_id,
            device[:DEVICE_MAX],
            lifetime,
        )
    return secret


async def end(db: Database, *, secret: str) -> None:
    async with db.connection() as conn:
        await conn.execute("DELETE FROM web_sessions WHERE token_hash = $1", digest(secret))


async def end_one(db: Database, *, user_id: str, session_id: int) -> None:
    if not 1 <= session_id <= MAX_BIGINT:  # ids are bigints
        raise NotFound("No such session")
    async with db.connection() as conn:
        done = await conn.execute(
            "DELETE FROM web_sessions WHERE id = $1 AND user_id = $2", session_id, user_id
        )
    if done == "DELETE 0":
        raise NotFound("No such session")


async def end_others(db: Database, *, user_id: str, keep: int | None) -> int:
    """Every session of the person but `keep`; how many ended."""
    async with db.connection() as conn:
        done = await conn.execute(
            "DELETE FROM web_sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2",
            user_id,
            keep,
        )
    return int(done.split()[-1])


async def end_everyone(db: Database, *, keep: int | None) -> int:
    """Every session of every person but `keep` (an admin's own); how many ended."""
    async with db.connection() as conn:
        done = await conn.execute("DELETE FROM web_sessions WHERE id IS DISTINCT FROM $1", keep)
    return int(done.split()[-1])


@retry_on_reconnect
async def listed(db: Database, *, user_id: str, idle: timedelta) -> list[SessionRecord]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, device, created_at, last_seen_at FROM web_sessions"
            " WHERE user_id = $1 AND expires_at > now() AND last_seen_at > now() - $2::interval"
            " ORDER BY last_seen_at DESC",
            user_id,
            idle,
        )
    return [SessionRecord(**dict(r)) for r in rows]
