"""What a request presents: the one store of `web_sessions` and `agent_keys`, and of the
lookups that check a presented credential on every request (`credentials.Credentials`). A
secret is stored, and looked up, only as its digest. Each function runs on the caller's
connection, inside its transaction when it holds one; a record holds only the columns that
may leave the server. (Passkeys and the authenticator app, which prove who signs in, are
`store_factors`.)"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg
from pydantic import ConfigDict

from parley.accounts.schemas import AgentKeyOut, SessionShown
from parley.models import AgentKey, WebSession, columns, from_row

# -- checking a credential --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionCheck:
    id: int
    user_id: str
    is_admin: bool
    disabled: bool
    expired: bool
    stale: bool  # last seen over a minute ago: time to note it again
    authenticated: float  # the session's start, epoch seconds


@dataclass(frozen=True, slots=True)
class KeyCheck:
    id: int
    user_id: str
    agent: str
    disabled: bool
    expired: bool
    stale: bool


@dataclass(frozen=True, slots=True)
class AccessCheck:
    """A connected app's access token, by its grant."""

    id: int  # the grant's
    user_id: str
    agent: str
    resource: str
    expires: float  # epoch seconds
    disabled: bool
    stale: bool


@dataclass(frozen=True, slots=True)
class AccountCheck:
    revoked: float | None  # tokens issued up to then are refused (epoch seconds)
    is_admin: bool
    disabled: bool


# A session ends at its absolute expiry, or once unused for the idle time ($2).
_SESSION = """SELECT s.id, s.user_id, a.is_admin, a.disabled_at IS NOT NULL AS disabled,
        s.expires_at <= now() OR s.last_seen_at <= now() - $2::interval AS expired,
        s.last_seen_at < now() - interval '1 minute' AS stale,
        extract(epoch FROM s.created_at) AS authenticated
    FROM web_sessions s JOIN accounts a USING (user_id) WHERE s.token_hash = $1"""
_KEY = """SELECT k.id, k.user_id, k.agent, coalesce(a.disabled_at IS NOT NULL, false) AS disabled,
        coalesce(k.expires_at <= now(), false) AS expired,
        coalesce(k.last_used_at < now() - interval '1 minute', true) AS stale
    FROM agent_keys k LEFT JOIN accounts a USING (user_id) WHERE k.secret_hash = $1"""
_OAUTH = """SELECT g.id, g.user_id, g.agent, t.resource,
        extract(epoch FROM t.expires_at) AS expires,
        coalesce(a.disabled_at IS NOT NULL, false) AS disabled,
        coalesce(g.last_used_at < now() - interval '1 minute', true) AS stale
    FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
    LEFT JOIN accounts a USING (user_id) WHERE t.token_hash = $1 AND t.kind = 'access'"""
_ACCOUNT = """SELECT extract(epoch FROM tokens_revoked_at) AS revoked, is_admin,
        disabled_at IS NOT NULL AS disabled
    FROM accounts WHERE user_id = $1"""


async def check_session(
    conn: asyncpg.Connection, *, token_hash: bytes, idle: timedelta
) -> SessionCheck | None:
    row = await conn.fetchrow(_SESSION, token_hash, idle)
    return None if row is None else from_row(SessionCheck, row)


async def check_key(conn: asyncpg.Connection, *, secret_hash: bytes) -> KeyCheck | None:
    row = await conn.fetchrow(_KEY, secret_hash)
    return None if row is None else from_row(KeyCheck, row)


async def check_access(conn: asyncpg.Connection, *, token_hash: bytes) -> AccessCheck | None:
    row = await conn.fetchrow(_OAUTH, token_hash)
    return None if row is None else from_row(AccessCheck, row)


async def check_account(conn: asyncpg.Connection, *, user_id: str) -> AccountCheck | None:
    row = await conn.fetchrow(_ACCOUNT, user_id)
    return None if row is None else from_row(AccountCheck, row)


async def session_seen(conn: asyncpg.Connection, *, session_id: int) -> None:
    await conn.execute("UPDATE web_sessions SET last_seen_at = now() WHERE id = $1", session_id)


async def key_used(conn: asyncpg.Connection, *, key_id: int) -> None:
    await conn.execute("UPDATE agent_keys SET last_used_at = now() WHERE id = $1", key_id)


async def grant_used(conn: asyncpg.Connection, *, grant_id: int) -> None:
    await conn.execute("UPDATE oauth_grants SET last_used_at = now() WHERE id = $1", grant_id)


# -- web sessions -----------------------------------------------------------------------


class SessionRecord(SessionShown):
    """A row of `web_sessions` (its digest left out), validated by column name."""

    model_config = ConfigDict(frozen=True)


_SESSION_COLUMNS = columns(WebSession, SessionRecord)


async def insert_session(
    conn: asyncpg.Connection, *, token_hash: bytes, user_id: str, device: str, lifetime: timedelta
) -> None:
    await conn.execute(
        "INSERT INTO web_sessions (token_hash, user_id, device, expires_at)"
        " VALUES ($1, $2, $3, now() + $4)",
        token_hash,
        user_id,
        device,
        lifetime,
    )


async def end_session(conn: asyncpg.Connection, *, token_hash: bytes) -> None:
    await conn.execute("DELETE FROM web_sessions WHERE token_hash = $1", token_hash)


async def end_expired_sessions(conn: asyncpg.Connection, *, user_id: str, idle: timedelta) -> None:
    await conn.execute(
        "DELETE FROM web_sessions WHERE user_id = $1"
        " AND (expires_at <= now() OR last_seen_at <= now() - $2::interval)",
        user_id,
        idle,
    )


async def end_session_of(conn: asyncpg.Connection, *, user_id: str, session_id: int) -> bool:
    """Whether the person had that session."""
    done = await conn.execute(
        "DELETE FROM web_sessions WHERE id = $1 AND user_id = $2", session_id, user_id
    )
    return done != "DELETE 0"


async def end_sessions_of(conn: asyncpg.Connection, *, user_id: str, keep: int | None) -> int:
    """Every session of the person but `keep`; how many ended."""
    done = await conn.execute(
        "DELETE FROM web_sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2", user_id, keep
    )
    return int(done.split()[-1])


async def end_all_sessions(conn: asyncpg.Connection, *, keep: int | None) -> int:
    """Every session of every person but `keep`; how many ended."""
    done = await conn.execute("DELETE FROM web_sessions WHERE id IS DISTINCT FROM $1", keep)
    return int(done.split()[-1])


async def live_sessions(
    conn: asyncpg.Connection, *, user_id: str, idle: timedelta
) -> list[SessionRecord]:
    """The person's sessions neither expired nor idle too long, the last used first."""
    rows = await conn.fetch(
        f"SELECT {_SESSION_COLUMNS} FROM web_sessions"
        " WHERE user_id = $1 AND expires_at > now() AND last_seen_at > now() - $2::interval"
        " ORDER BY last_seen_at DESC",
        user_id,
        idle,
    )
    return [from_row(SessionRecord, r) for r in rows]


# -- agent keys -------------------------------------------------------------------------


class KeyRecord(AgentKeyOut):
    """A row of `agent_keys` (its digest left out), validated by column name: the wire shape."""

    model_config = ConfigDict(frozen=True)


_KEY_COLUMNS = columns(AgentKey, KeyRecord)


async def count_keys(conn: asyncpg.Connection, *, user_id: str) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM agent_keys WHERE user_id = $1", user_id))


async def is_past(conn: asyncpg.Connection, *, when: datetime) -> bool:
    """Whether `when` is past by the database's clock (the one expiry is checked by)."""
    return bool(await conn.fetchval("SELECT $1 <= now()", when))


async def insert_key(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    agent: str,
    prefix: str,
    secret_hash: bytes,
    expires_at: datetime | None,
) -> KeyRecord:
    row = await conn.fetchrow(
        f"""INSERT INTO agent_keys (user_id, agent, prefix, secret_hash, expires_at)
        VALUES ($1, $2, $3, $4, $5) RETURNING {_KEY_COLUMNS}""",
        user_id,
        agent,
        prefix,
        secret_hash,
        expires_at,
    )
    return from_row(KeyRecord, row)


async def keys_of(conn: asyncpg.Connection, *, user_id: str) -> list[KeyRecord]:
    rows = await conn.fetch(
        f"SELECT {_KEY_COLUMNS} FROM agent_keys WHERE user_id = $1 ORDER BY id", user_id
    )
    return [from_row(KeyRecord, r) for r in rows]


async def delete_key_by_digest(conn: asyncpg.Connection, *, secret_hash: bytes) -> None:
    await conn.execute("DELETE FROM agent_keys WHERE secret_hash = $1", secret_hash)


async def delete_key(conn: asyncpg.Connection, *, user_id: str, key_id: int) -> bool:
    """Whether the person had that key."""
    done = await conn.execute(
        "DELETE FROM agent_keys WHERE id = $1 AND user_id = $2", key_id, user_id
    )
    return done != "DELETE 0"
