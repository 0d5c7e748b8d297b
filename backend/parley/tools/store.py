"""The one store of `mcp_calls`: tool calls remembered by the client's call id, so a call
sent twice runs once (`call_memory` says how). Each statement names the calling person and
agent ('' for the person), so it touches only their rows, on their node on a cluster."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.models import from_row

RETENTION = "1 day"

# True when this call is the first with the key, or takes over one forgotten (older than
# RETENTION) or stale (parley/sql/remember_call.sql).
_CLAIM = "SELECT parley_remember_call($1, $2, $3, $4, $5)"
_READ = "SELECT tool, result, wait FROM mcp_calls WHERE user_id = $1 AND caller = $2 AND key = $3"
_FORGET = f"DELETE FROM mcp_calls WHERE created_at < now() - interval '{RETENTION}'"


@dataclass(frozen=True, slots=True)
class Remembered:
    """What the first call with this key left."""

    tool: str
    result: dict[str, Any] | None  # its tool result, once it returned one
    wait: str | None  # or the wait it started (`WaitRef` as text)


async def forget_old(conn: asyncpg.Connection) -> None:
    """Every person's calls older than RETENTION."""
    await conn.execute(_FORGET)


async def claim(
    conn: asyncpg.Connection, *, user_id: str, caller: str, key: str, tool: str, stale_s: float
) -> bool:
    """Whether this call is the one to run (see `_CLAIM`)."""
    return bool(await conn.fetchval(_CLAIM, user_id, caller, key, tool, stale_s))


async def read(
    conn: asyncpg.Connection, *, user_id: str, caller: str, key: str
) -> Remembered | None:
    row = await conn.fetchrow(_READ, user_id, caller, key)
    return None if row is None else from_row(Remembered, row)


async def record_wait(
    conn: asyncpg.Connection, *, user_id: str, caller: str, key: str, wait: str
) -> None:
    await conn.execute(
        "UPDATE mcp_calls SET wait = $4 WHERE user_id = $1 AND caller = $2 AND key = $3",
        user_id,
        caller,
        key,
        wait,
    )


async def record_result(
    conn: asyncpg.Connection, *, user_id: str, caller: str, key: str, result: dict[str, Any]
) -> None:
    await conn.execute(
        "UPDATE mcp_calls SET result = $4 WHERE user_id = $1 AND caller = $2 AND key = $3",
        user_id,
        caller,
        key,
        result,
    )


async def release(conn: asyncpg.Connection, *, user_id: str, caller: str, key: str) -> None:
    """Drops the claim if it left nothing (no result, no wait)."""
    await conn.execute(
        "DELETE FROM mcp_calls WHERE user_id = $1 AND caller = $2 AND key = $3"
        " AND result IS NULL AND wait IS NULL",
        user_id,
        caller,
        key,
    )
