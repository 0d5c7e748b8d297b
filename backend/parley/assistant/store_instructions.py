"""The one store of `person_instructions`: a person's own instructions to the assistant, one
row per person. Every statement names the owner's user id (on a Citus cluster, the node)."""

from __future__ import annotations

import asyncpg

# Read at every chat turn (its hot path: tests/cluster/test_layout.py).
_READ = "SELECT text FROM person_instructions WHERE user_id = $1"


async def read(conn: asyncpg.Connection, *, user_id: str) -> str:
    """The person's instructions; "" when they have none."""
    found: str | None = await conn.fetchval(_READ, user_id)
    return found or ""


async def write(conn: asyncpg.Connection, *, user_id: str, text: str) -> None:
    """Replace them; an empty text removes the row (nothing to give the model)."""
    if not text:
        await conn.execute("DELETE FROM person_instructions WHERE user_id = $1", user_id)
        return
    await conn.execute(
        "INSERT INTO person_instructions (user_id, text) VALUES ($1, $2)"
        " ON CONFLICT (user_id) DO UPDATE SET text = EXCLUDED.text, updated_at = now()",
        user_id,
        text,
    )
