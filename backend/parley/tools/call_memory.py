"""Tool calls remembered by the client's call id, so a call sent twice runs once.

The row is inserted *before* the call runs (`claim`): of two copies arriving at once, on one
instance or two, PostgreSQL lets exactly one insert it; the other reads what the first left:
its result, the wait it started (a question, a thread: the copy then waits on the same one),
or nothing yet (it is still running: the copy waits for it, briefly). A claim whose call
died before leaving anything is taken over after `stale_s`. Rows live a day.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any

from parley.auth import Caller
from parley.db import Database

KEY_MAX = 200
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


def _who(caller: Caller) -> tuple[str, str]:
    return caller.user_id, caller.agent or ""


async def claim(
    db: Database, *, caller: Caller, key: str, tool: str, stale_s: float
) -> Remembered | None:
    """None: this call is the first with `key` (now claimed: run it, then `finish`);
    else what the first one left."""
    async with db.connection() as conn:
        if random.random() < 0.01:  # forgetting is cheap and needs no sweeper of its own
            await conn.execute(_FORGET)
        if await conn.fetchval(_CLAIM, *_who(caller), key, tool, stale_s):
            return None
        row = await conn.fetchrow(_READ, *_who(caller), key)
    if row is None:  # forgotten in between: a day-old claim; take it now
        return await claim(db, caller=caller, key=key, tool=tool, stale_s=stale_s)
    return Remembered(row["tool"], row["result"], row["wait"])


async def settled(
    db: Database, *, caller: Caller, key: str, tool: str, within: float
) -> Remembered | None:
    """Wait (polling; the first copy is at most a tool's in-band wait away) until the first
    call with `key` left a result or a wait; None if it has not within `within` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    delay = 0.05
    while True:
        async with db.connection() as conn:
            row = await conn.fetchrow(_READ, *_who(caller), key)
        if row is not None and (row["result"] is not None or row["wait"] is not None):
            return Remembered(row["tool"], row["result"], row["wait"])
        if loop.time() + delay > deadline:
            return None
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


async def record_wait(db: Database, *, caller: Caller, key: str, wait: str) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE mcp_calls SET wait = $4 WHERE user_id = $1 AND caller = $2 AND key = $3",
            *_who(caller),
            key,
            wait,
        )


async def finish(db: Database, *, caller: Caller, key: str, result: dict[str, Any]) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE mcp_calls SET result = $4 WHERE user_id = $1 AND caller = $2 AND key = $3",
            *_who(caller),
            key,
            result,
        )


async def release(db: Database, *, caller: Caller, key: str) -> None:
    """The call failed at the protocol level (nothing to remember): a copy may run it."""
    async with db.connection() as conn:
        await conn.execute(
            "DELETE FROM mcp_calls WHERE user_id = $1 AND caller = $2 AND key = $3"
            " AND result IS NULL AND wait IS NULL",
            *_who(caller),
            key,
        )
