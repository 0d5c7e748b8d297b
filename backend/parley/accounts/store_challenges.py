"""What a sign-in holds in flight: `auth_challenges` (a passkey ceremony's challenge, a
single sign-on flow's state, an authenticator-app step, an email link; each kept under a
digest of its secret, so any instance can finish it, once) and `login_throttle` (the failed
attempts counted against an account and an address). Every statement on the two tables from
the accounts package is here; connected apps keep theirs in `parley.oauth.store`. Each
function runs on the caller's connection, inside its transaction when it holds one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import asyncpg

from parley.models import from_row

# -- challenges -------------------------------------------------------------------------


async def sweep(conn: asyncpg.Connection) -> None:
    """Drops challenges expired for over an hour: nobody can finish them any more."""
    await conn.execute("DELETE FROM auth_challenges WHERE expires_at < now() - interval '1 hour'")


async def remember(
    conn: asyncpg.Connection,
    *,
    key: str,
    purpose: str,
    data: dict[str, Any],
    seconds: float,
    user_id: str | None = None,
) -> None:
    """A new challenge, good for `seconds`."""
    await conn.execute(
        "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
        " VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))",
        key,
        purpose,
        user_id,
        data,
        seconds,
    )


async def take(
    conn: asyncpg.Connection, *, key: str, purpose: str, user_id: str | None
) -> dict[str, Any] | None:
    """Uses up the unexpired challenge of exactly this person (or of nobody: `None`), and
    gives its data; None when there is none."""
    row = await conn.fetchrow(
        "DELETE FROM auth_challenges WHERE id = $1 AND purpose = $2"
        " AND user_id IS NOT DISTINCT FROM $3 AND expires_at > now() RETURNING data",
        key,
        purpose,
        user_id,
    )
    return None if row is None else row["data"]


async def take_oidc(conn: asyncpg.Connection, *, key: str, binder: str) -> dict[str, Any] | None:
    """Uses up a single sign-on flow, only for the browser bound to it (`binder`)."""
    row = await conn.fetchrow(
        "DELETE FROM auth_challenges WHERE id = $1 AND purpose = 'oidc'"
        " AND data->>'binder' = $2 AND expires_at > now() RETURNING data",
        key,
        binder,
    )
    return None if row is None else row["data"]


async def owner(conn: asyncpg.Connection, *, key: str, purpose: str) -> str | None:
    """Whose unexpired challenge this is (it stays usable)."""
    found = await conn.fetchval(
        "SELECT user_id FROM auth_challenges WHERE id = $1 AND purpose = $2 AND expires_at > now()",
        key,
        purpose,
    )
    return None if found is None else str(found)


async def use_up(conn: asyncpg.Connection, *, key: str, purpose: str, user_id: str) -> bool:
    """Deletes the person's unexpired challenge; whether it was still there."""
    return bool(
        await conn.fetchval(
            "DELETE FROM auth_challenges WHERE id = $1 AND purpose = $2 AND user_id = $3"
            " AND expires_at > now() RETURNING true",
            key,
            purpose,
            user_id,
        )
    )


async def drop(conn: asyncpg.Connection, *, key: str) -> None:
    await conn.execute("DELETE FROM auth_challenges WHERE id = $1", key)


async def drop_all(conn: asyncpg.Connection, *, purpose: str, user_id: str) -> None:
    """Every challenge of the person for `purpose`."""
    await conn.execute(
        "DELETE FROM auth_challenges WHERE purpose = $1 AND user_id = $2", purpose, user_id
    )


# An email link's data: the address it was sent to, and when (the database's clock, which
# `seconds_since_sent` reads too).


async def remember_email_link(
    conn: asyncpg.Connection, *, key: str, purpose: str, user_id: str, email: str, seconds: float
) -> None:
    await conn.execute(
        "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
        " VALUES ($1, $2, $3,"
        " jsonb_build_object('email', $4::text, 'sent', extract(epoch FROM now())),"
        " now() + make_interval(secs => $5))",
        key,
        purpose,
        user_id,
        email,
        seconds,
    )


async def seconds_since_sent(
    conn: asyncpg.Connection, *, purpose: str, user_id: str
) -> float | None:
    """Since the person's last email link for `purpose` was sent; None if none is kept."""
    since = await conn.fetchval(
        "SELECT extract(epoch FROM now())::float8 - max((data->>'sent')::float8)"
        " FROM auth_challenges WHERE purpose = $1 AND user_id = $2",
        purpose,
        user_id,
    )
    return None if since is None else float(since)


@dataclass(frozen=True, slots=True)
class Locked:
    user_id: str | None
    data: dict[str, Any]
    fresh: bool


async def lock(conn: asyncpg.Connection, *, key: str, purpose: str) -> Locked | None:
    """The challenge, expired or not, its row locked until the caller's transaction ends."""
    row = await conn.fetchrow(
        "SELECT user_id, data, expires_at > now() AS fresh FROM auth_challenges"
        " WHERE id = $1 AND purpose = $2 FOR UPDATE",
        key,
        purpose,
    )
    return None if row is None else from_row(Locked, row)


# -- sign-in attempts -------------------------------------------------------------------


async def reserve_attempt(
    conn: asyncpg.Connection,
    *,
    keys: list[str],
    free: list[int],
    delay: float,
    delay_max: float,
    window: timedelta,
) -> float | None:
    """Counts one attempt against each key (`parley_signin_reserve`, parley/sql/); the
    seconds to wait instead, counting nothing, while one is locked out."""
    wait = await conn.fetchval(
        "SELECT parley_signin_reserve($1, $2, $3, $4, $5)", keys, free, delay, delay_max, window
    )
    return None if wait is None else float(wait)


async def lock_out(
    conn: asyncpg.Connection, *, key: str, free: int, delay: float, delay_max: float
) -> None:
    """A failed attempt: a key past its free attempts waits, doubling with each, from now."""
    await conn.execute(
        "UPDATE login_throttle SET locked_until = greatest(locked_until,"
        " clock_timestamp() + make_interval(secs => least($4::float8,"
        " $3::float8 * 2 ^ least(failures - $2, 30))))"
        " WHERE key = $1 AND failures >= $2",
        key,
        free,
        delay,
        delay_max,
    )


async def clear(conn: asyncpg.Connection, *, key: str) -> None:
    await conn.execute("DELETE FROM login_throttle WHERE key = $1", key)


async def take_back(conn: asyncpg.Connection, *, key: str, free: int) -> None:
    """One attempt fewer on `key`, unlocked once it is within its free attempts again."""
    await conn.execute(
        "UPDATE login_throttle SET failures = greatest(failures - 1, 0),"
        " locked_until = CASE WHEN failures - 1 < $2 THEN NULL ELSE locked_until END"
        " WHERE key = $1",
        key,
        free,
    )
