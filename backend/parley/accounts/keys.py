"""Agent keys: a credential a person makes for one named agent. The secret is shown once and
kept as a SHA-256 digest; its `pk_parley_` prefix lets secret scanners recognise a leak."""

from __future__ import annotations

import secrets
from datetime import datetime

from pydantic import ConfigDict

from parley.accounts.schemas import AgentKeyOut
from parley.auth import validate_agent_name
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.models import MAX_BIGINT

from .hashing import digest, new_secret

PREFIX = "pk_parley_"
MAX_KEYS = 100  # per person: more is a leak in the making, not a use


class KeyRecord(AgentKeyOut):
    """A row of `agent_keys` (its digest left out), validated by column name: the wire shape."""

    model_config = ConfigDict(frozen=True)


_COLUMNS = "id, agent, prefix, created_at, expires_at, last_used_at"


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
        count = await conn.fetchval("SELECT count(*) FROM agent_keys WHERE user_id = $1", user_id)
        if count >= MAX_KEYS:
            raise InvalidInput(f"At most {MAX_KEYS} agent keys; revoke some first")
        if expires_at is not None and await conn.fetchval("SELECT $1 <= now()", expires_at):
            raise InvalidInput("expires_at is in the past", details=[{"field": "expires_at"}])
        row = await conn.fetchrow(
            f"""INSERT INTO agent_keys (user_id, agent, prefix, secret_hash, expires_at)
            VALUES ($1, $2, $3, $4, $5) RETURNING {_COLUMNS}""",
            user_id,
            agent,
            PREFIX + public,
            digest(secret),
            expires_at,
        )
    return KeyRecord(**dict(row)), secret


@retry_on_reconnect
async def listed(db: Database, *, user_id: str) -> list[KeyRecord]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {_COLUMNS} FROM agent_keys WHERE user_id = $1 ORDER BY id", user_id
        )
    return [KeyRecord(**dict(r)) for r in rows]


async def revoke(db: Database, *, user_id: str, key_id: int) -> None:
    if not 1 <= key_id <= MAX_BIGINT:  # ids are bigints
        raise NotFound("No such agent key")
    async with db.connection() as conn:
        done = await conn.execute(
            "DELETE FROM agent_keys WHERE id = $1 AND user_id = $2", key_id, user_id
        )
    if done == "DELETE 0":
        raise NotFound("No such agent key")


async def revoke_secret(db: Database, *, secret: str) -> None:
    """The key whose secret this is, by whoever holds it (giving a key up needs nothing
    more); nothing when there is none."""
    async with db.connection() as conn:
        await conn.execute("DELETE FROM agent_keys WHERE secret_hash = $1", digest(secret))
