"""One-time sign-up links: an admin's (or the operator's `parley user create`) invitation,
kept as a digest of the link's token, used once, expiring."""

from __future__ import annotations

from datetime import timedelta

import asyncpg

from parley.auth import validate_new_user_id
from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound

from . import store
from .hashing import digest, new_secret
from .store import InviteRecord, clean_email


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
        invite = await store.insert_invite(
            conn,
            token_hash=digest(token),
            email=clean_email(email),
            user_id=user_id,
            is_admin=is_admin,
            created_by=created_by,
            lifetime=lifetime,
        )
    return invite, token


@retry_on_reconnect
async def find(db: Database, *, token: str) -> InviteRecord:
    """An unused, unexpired invite, or 404."""
    async with db.connection() as conn:
        invite = await store.usable_invite(conn, token_hash=digest(token))
    if invite is None:
        raise NotFound("This invite is unknown, used or expired")
    return invite


async def consume(conn: asyncpg.Connection, *, token: str, user_id: str) -> InviteRecord:
    """Marks the invite used by `user_id` inside the caller's transaction (so a failed
    sign-up leaves it usable); 404 when it is not (any longer) usable."""
    invite = await store.use_invite(conn, token_hash=digest(token), user_id=user_id)
    if invite is None:
        raise NotFound("This invite is unknown, used or expired")
    return invite
