"""Agent keys: a credential a person makes for one named agent. The secret is shown once and
kept as a SHA-256 digest; its `pk_parley_` prefix lets secret scanners recognise a leak."""

from __future__ import annotations

import secrets
from datetime import datetime

from parley.auth import validate_agent_name
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.models import MAX_BIGINT

from . import store_credentials as store
from .hashing import digest, new_secret
from .store_credentials import KeyRecord

PREFIX = "pk_parley_"
MAX_KEYS = 100  # per person: more is a leak in the making, not a use


def is_key(token: str) -> bool:
    return token.startswith(PREFIX)


async def create(
    db: Database, *, user_id: str, agent: str, expires_at: datetime | None
) -> tuple[KeyRecord, str]:
    """The new key and its secret (the only time anyone sees it)."""
    validate_agent_name(agent)
    if expires_at is not None and expires_at.tzinfo is None:
        raise InvalidInput("expires_at needs a time zone", details=[{"field": "expires_at"}])
    public = secrets.token_hex(4)
    secret = f"{PREFIX}{public}_{new_secret()}"
    async with db.transaction() as conn:
        if await store.count_keys(conn, user_id=user_id) >= MAX_KEYS:
            raise InvalidInput(f"At most {MAX_KEYS} agent keys; revoke some first")
        if expires_at is not None and await store.is_past(conn, when=expires_at):
            raise InvalidInput("expires_at is in the past", details=[{"field": "expires_at"}])
        key = await store.insert_key(
            conn,
            user_id=user_id,
            agent=agent,
            prefix=PREFIX + public,
            secret_hash=digest(secret),
            expires_at=expires_at,
        )
    return key, secret


@retry_on_reconnect
async def listed(db: Database, *, user_id: str) -> list[KeyRecord]:
    async with db.connection() as conn:
        return await store.keys_of(conn, user_id=user_id)


async def revoke(db: Database, *, user_id: str, key_id: int) -> None:
    if not 1 <= key_id <= MAX_BIGINT:  # ids are bigints
        raise NotFound("No such agent key")
    async with db.connection() as conn:
        found = await store.delete_key(conn, user_id=user_id, key_id=key_id)
    if not found:
        raise NotFound("No such agent key")


async def revoke_secret(db: Database, *, secret: str) -> None:
    """The key whose secret this is, by whoever holds it (giving a key up needs nothing
    more); nothing when there is none."""
    async with db.connection() as conn:
        await store.delete_key_by_digest(conn, secret_hash=digest(secret))
