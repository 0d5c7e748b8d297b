"""Passkeys (WebAuthn credentials) an account registered: stored public keys."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound


@dataclass(slots=True, frozen=True)
class PasskeyRecord:
    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None


@retry_on_reconnect
async def listed(db: Database, *, user_id: str) -> list[PasskeyRecord]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = $1"
            " ORDER BY id",
            user_id,
        )
    return [PasskeyRecord(**dict(r)) for r in rows]


async def delete(db: Database, *, user_id: str, passkey_id: int) -> None:
    if not 1 <= passkey_id < 2**63:  # ids are bigints
        raise NotFound("No such passkey")
    async with db.connection() as conn:
        done = await conn.execute(
            "DELETE FROM passkeys WHERE id = $1 AND user_id = $2", passkey_id, user_id
        )
    if done == "DELETE 0":
        raise NotFound("No such passkey")
