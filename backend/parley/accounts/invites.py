"""One-time sign-up links: an admin's (or the operator's `parley user create`) invitation,
kept as a digest of the link's token, used once, expiring."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg

from parley.auth import validate_new_user_id
from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound

from .hashing import digest, new_secret
from .store import clean_email


@dataclass(slots=True, frozen=True)
class InviteRecord:
    id: int
    email: str | None
    user_id: str | None
    is_admin: bool
    expires_at: datetime


_COLUMNS = "id, email, user_id, is_admin, expires_at"


def link(web_origin: str, token: str) -> str:
    return f"{web_origin.rstrip('/')}/invite/{token}"


async def create(
    db: Database,
    *,
    created_by: str | None,
    lifetime: timedelta,
    email: str | None = None,
    user_id: str | None = None,
    is_admin: bool = False,
) -> tuple[InviteRecord, str]:
    """The invite and its token (for the link; never stored)."""
    if user_id is not None:
        validate_new_user_id(user_id)
    token = new_secret()
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""INSERT INTO invites (token_hash, email, user_id, is_admin, created_by, expires_at)
            VALUES ($1, $2, $3, $4, $5, now() + $6) RETURNING {_COLUMNS}""",
            digest(token),
            clean_email(email),
            user_id,
            is_admin,
            created_by,
            lifetime,
        )
    return InviteRecord(**dict(row)), token


@retry_on_reconnect
async def find(db: Database, *, token: str) -> InviteRecord:
    """An unused, unexpired invite, or 404."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM invites WHERE token_hash = $1"
            " AND used_at IS NULL AND expires_at > now()",
            digest(token),
        )
    if row is None:
        raise NotFound("This invite is unknown, used or expired")
    return InviteRecord(**dict(row))


async def consume(conn: asyncpg.Connection, *, token: str, user_id: str) -> InviteRecord:
    """Marks the invite used by `user_id` inside the caller's transaction (so a failed
    sign-up leaves it usable); 404 when it is not (any longer) usable."""
    row = await conn.fetchrow(
        f"""UPDATE invites SET used_at = now(), used_by = $2 WHERE token_hash = $1
        AND used_at IS NULL AND expires_at > now() RETURNING {_COLUMNS}""",
        digest(token),
        user_id,
    )
    if row is None:
        raise NotFound("This invite is unknown, used or expired")
    return InviteRecord(**dict(row))
