"""The device codes' rows: every statement about them (and only here).

Codes are found by their SHA-256 digest. A poll locks its row, so two polls of one code are
answered one after the other: an approved code is redeemed by exactly one of them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import asyncpg

from parley.accounts.hashing import digest
from parley.db import Database, retry_on_reconnect
from parley.errors import Forbidden

# A row stays this long past its expiry (a late poll is told `expired_token`, not that the
# code is unknown), then the next new code clears it away.
KEPT = timedelta(hours=1)
# A poll this much sooner than the interval asked is too fast (`slow_down`): a client that
# waits as told is never refused because its previous request was answered late.
EARLY = 0.75
SLOWER = 5  # seconds added to the interval on each `slow_down` (RFC 8628 §3.5)

Inserted = Literal["inserted", "taken", "full"]
Answer = Literal["unknown", "expired", "slow_down", "pending", "denied", "redeemed", "used"]


@dataclass(frozen=True, slots=True)
class Polled:
    answer: Answer
    user_id: str | None = None  # the person, when this poll redeemed the code


@dataclass(frozen=True, slots=True)
class Pending:
    application: str
    machine: str
    created_at: datetime
    expires_at: datetime


async def insert(
    db: Database,
    *,
    device_code: str,
    user_code: str,
    client_id: str,
    application: str,
    machine: str,
    address: str,
    interval: int,
    lifetime: timedelta,
    most_pending: int,
) -> Inserted:
    """`taken` if the user code is already (the caller draws another); `full` if the address
    has `most_pending` codes waiting already: counted under a lock per address, so a burst
    of requests at once is held to it as well as one after another."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM device_codes WHERE expires_at < now() - $1::interval", KEPT)
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext('device_codes:' || $1))", address)
        waiting = await conn.fetchval(
            "SELECT count(*) FROM device_codes WHERE address = $1 AND status = 'pending'"
            " AND expires_at > now()",
            address,
        )
        if waiting >= most_pending:
            return "full"
        try:
            async with conn.transaction():
                await conn.execute(
                    """INSERT INTO device_codes (device_hash, user_code_hash, client_id,
                        application, machine, address, interval_seconds, expires_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8::interval)""",
                    digest(device_code),
                    digest(user_code),
                    client_id,
                    application,
                    machine,
                    address,
                    interval,
                    lifetime,
                )
        except asyncpg.UniqueViolationError:
            return "taken"
    return "inserted"


_POLL = """SELECT id, client_id, status, user_id, expires_at <= now() AS expired,
        polled_at IS NOT NULL
            AND now() - polled_at < make_interval(secs => interval_seconds * $2::float8)
            AS early
    FROM device_codes WHERE device_hash = $1 FOR UPDATE"""


async def poll(db: Database, *, device_code: str, client_id: str) -> Polled:
    """One poll, counted: what the program is told, and the person if it now redeems the
    approved code (once: the row is locked, and a redeemed code never answers again)."""
    async with db.transaction() as conn:
        row = await conn.fetchrow(_POLL, digest(device_code), EARLY)
        if row is None or row["client_id"] != client_id:
            return Polled("unknown")
        if row["status"] == "redeemed":
            return Polled("used")
        if row["expired"]:
            return Polled("expired")
        if row["early"]:
            await conn.execute(
                "UPDATE device_codes SET polled_at = now(), interval_seconds ="
                " interval_seconds + $2 WHERE id = $1",
                row["id"],
                SLOWER,
            )
            return Polled("slow_down")
        if row["status"] == "approved":
            await conn.execute(
                "UPDATE device_codes SET polled_at = now(), status = 'redeemed' WHERE id = $1",
                row["id"],
            )
            return Polled("redeemed", user_id=row["user_id"])
        await conn.execute("UPDATE device_codes SET polled_at = now() WHERE id = $1", row["id"])
        return Polled("denied" if row["status"] == "denied" else "pending")


@retry_on_reconnect
async def find_pending(db: Database, *, user_code: str) -> Pending | None:
    """A code waiting for a person's answer: what it is for (nothing of it once answered)."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "SELECT application, machine, created_at, expires_at FROM device_codes"
            " WHERE user_code_hash = $1 AND status = 'pending' AND expires_at > now()",
            digest(user_code),
        )
    return None if row is None else Pending(**dict(row))


async def decide(db: Database, *, user_code: str, user_id: str, allow: bool) -> Pending | None:
    """The person's answer to a waiting code, once; None if it is not waiting (unknown,
    answered, or expired). Allowing needs the person's account to exist."""
    async with db.transaction() as conn:
        if allow and not await conn.fetchval(
            "SELECT true FROM accounts WHERE user_id = $1 AND disabled_at IS NULL", user_id
        ):
            raise Forbidden("Sign in with an account to connect a device", code="account_required")
        row = await conn.fetchrow(
            "UPDATE device_codes SET status = $3, user_id = $2, decided_at = now()"
            " WHERE user_code_hash = $1 AND status = 'pending' AND expires_at > now()"
            " RETURNING application, machine, created_at, expires_at",
            digest(user_code),
            user_id,
            "approved" if allow else "denied",
        )
    return None if row is None else Pending(**dict(row))
