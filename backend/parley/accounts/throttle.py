"""Failed sign-ins slow the next ones, per account and per address, on every instance (the
counters are rows). A refused attempt (429) is not a failure: it cannot extend the wait,
so the right password works as soon as the wait is over."""

from __future__ import annotations

import math

from parley.db import Database
from parley.errors import RateLimited

# Failures older than this are forgotten.
WINDOW = "15 minutes"


def account_key(login: str) -> str:
    return "login:" + login.strip().lower()


def address_key(address: str) -> str:
    return "address:" + address


async def check(db: Database, *, keys: list[str]) -> None:
    """429 with the seconds to wait while any of `keys` is waiting out its failures."""
    async with db.connection() as conn:
        wait = await conn.fetchval(
            "SELECT max(extract(epoch FROM locked_until - now())) FROM login_throttle"
            " WHERE key = ANY($1) AND locked_until > now()",
            keys,
        )
    if wait is not None:
        seconds = max(1, math.ceil(float(wait)))
        raise RateLimited(
            f"Too many failed sign-ins; try again in {seconds} s", retry_after_seconds=seconds
        )


async def failed(db: Database, *, limits: dict[str, int], delay: float, delay_max: float) -> None:
    """Count a failure against each key; past its free attempts a key waits `delay`
    seconds, doubling with each further failure up to `delay_max`."""
    async with db.transaction() as conn:
        for key, free in limits.items():
            failures = await conn.fetchval(
                f"""INSERT INTO login_throttle (key, failures) VALUES ($1, 1)
                ON CONFLICT (key) DO UPDATE SET failures = CASE
                    WHEN login_throttle.last_failure_at < now() - interval '{WINDOW}' THEN 1
                    ELSE login_throttle.failures + 1 END,
                  last_failure_at = now()
                RETURNING failures""",
                key,
            )
            if failures >= free:
                wait = min(delay_max, delay * 2 ** min(failures - free, 30))
                await conn.execute(
                    "UPDATE login_throttle SET locked_until = now() + make_interval(secs => $2)"
                    " WHERE key = $1",
                    key,
                    wait,
                )


async def succeeded(db: Database, *, key: str) -> None:
    async with db.connection() as conn:
        await conn.execute("DELETE FROM login_throttle WHERE key = $1", key)
