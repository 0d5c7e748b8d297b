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
from typing import Any

from parley.auth import Caller
from parley.db import Database

from . import store
from .store import Remembered

KEY_MAX = 200


def _agent(caller: Caller) -> str:
    """The `caller` column: the agent's name, '' for the person."""
    return caller.agent or ""


async def claim(
    db: Database, *, caller: Caller, key: str, tool: str, stale_s: float
) -> Remembered | None:
    """None: this call is the first with `key` (now claimed: run it, then `finish`);
    else what the first one left."""
    async with db.connection() as conn:
        if random.random() < 0.01:  # forgetting is cheap and needs no sweeper of its own
            await store.forget_old(conn)
        if await store.claim(
            conn, user_id=caller.user_id, caller=_agent(caller), key=key, tool=tool, stale_s=stale_s
        ):
            return None
        row = await store.read(conn, user_id=caller.user_id, caller=_agent(caller), key=key)
    if row is None:  # forgotten in between: a day-old claim; take it now
        return await claim(db, caller=caller, key=key, tool=tool, stale_s=stale_s)
    return row


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
            row = await store.read(conn, user_id=caller.user_id, caller=_agent(caller), key=key)
        if row is not None and (row.result is not None or row.wait is not None):
            return row
        if loop.time() + delay > deadline:
            return None
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


async def record_wait(db: Database, *, caller: Caller, key: str, wait: str) -> None:
    async with db.connection() as conn:
        await store.record_wait(
            conn, user_id=caller.user_id, caller=_agent(caller), key=key, wait=wait
        )


async def finish(db: Database, *, caller: Caller, key: str, result: dict[str, Any]) -> None:
    async with db.connection() as conn:
        await store.record_result(
            conn, user_id=caller.user_id, caller=_agent(caller), key=key, result=result
        )


async def release(db: Database, *, caller: Caller, key: str) -> None:
    """The call failed at the protocol level (nothing to remember): a copy may run it."""
    async with db.connection() as conn:
        await store.release(conn, user_id=caller.user_id, caller=_agent(caller), key=key)
