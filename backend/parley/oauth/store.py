"""The one store of connected apps: `oauth_clients` (a client's registration or fetched
metadata document), `oauth_grants` (a person's consent to one client acting as one agent),
`oauth_tokens` (digests of its access and refresh tokens), and the `auth_challenges` rows of
the authorize step (a pending request, a one-time code). The presented-token check on every
request is the accounts package's (`accounts.store_credentials`). Each function runs on the
caller's connection, inside its transaction when it holds one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg

from parley.models import from_row

# -- clients ----------------------------------------------------------------------------


async def client_info(
    conn: asyncpg.Connection, *, client_id: str, fresh_seconds: float | None = None
) -> dict[str, Any] | None:
    """The client's stored information; with `fresh_seconds`, a fetched document's only if
    it was fetched within them (a registered client's always)."""
    if fresh_seconds is None:
        info = await conn.fetchval("SELECT info FROM oauth_clients WHERE client_id = $1", client_id)
    else:
        info = await conn.fetchval(
            "SELECT info FROM oauth_clients WHERE client_id = $1 AND (source = 'registered'"
            " OR fetched_at > now() - make_interval(secs => $2))",
            client_id,
            fresh_seconds,
        )
    return None if info is None else dict(info)


async def save_client(
    conn: asyncpg.Connection, *, client_id: str, source: str, info: dict[str, Any]
) -> None:
    await conn.execute(
        """INSERT INTO oauth_clients (client_id, source, info) VALUES ($1, $2, $3)
        ON CONFLICT (client_id) DO UPDATE SET info = $3, fetched_at = now()""",
        client_id,
        source,
        info,
    )


# -- grants (connected apps) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GrantRow:
    """A connected app as listed, with its client's first redirect URI ('' if unknown)."""

    id: int
    agent: str
    client_id: str
    client_name: str
    created_at: datetime
    last_used_at: datetime | None
    redirect_uri: str


async def grants_of(conn: asyncpg.Connection, *, user_id: str) -> list[GrantRow]:
    rows = await conn.fetch(
        """SELECT g.id, g.agent, g.client_id, g.client_name, g.created_at, g.last_used_at,
            coalesce(c.info->'redirect_uris'->>0, '') AS redirect_uri
        FROM oauth_grants g LEFT JOIN oauth_clients c USING (client_id)
        WHERE g.user_id = $1 ORDER BY g.id""",
        user_id,
    )
    return [from_row(GrantRow, r) for r in rows]


async def delete_grant_of(conn: asyncpg.Connection, *, user_id: str, grant_id: int) -> bool:
    """Whether the person had that connected app (its tokens go with it)."""
    done = await conn.execute(
        "DELETE FROM oauth_grants WHERE id = $1 AND user_id = $2", grant_id, user_id
    )
    return done != "DELETE 0"


async def delete_grant(conn: asyncpg.Connection, *, grant_id: int) -> None:
    await conn.execute("DELETE FROM oauth_grants WHERE id = $1", grant_id)


async def delete_grants_for(
    conn: asyncpg.Connection, *, user_id: str, client_id: str, agent: str
) -> None:
    """The person's earlier consent to this client as this agent."""
    await conn.execute(
        "DELETE FROM oauth_grants WHERE user_id = $1 AND client_id = $2 AND agent = $3",
        user_id,
        client_id,
        agent,
    )


async def insert_grant(
    conn: asyncpg.Connection, *, user_id: str, agent: str, client_id: str, client_name: str
) -> int:
    return int(
        await conn.fetchval(
            "INSERT INTO oauth_grants (user_id, agent, client_id, client_name)"
            " VALUES ($1, $2, $3, $4) RETURNING id",
            user_id,
            agent,
            client_id,
            client_name,
        )
    )


async def grant_exists(conn: asyncpg.Connection, *, grant_id: int) -> bool:
    return bool(await conn.fetchval("SELECT true FROM oauth_grants WHERE id = $1", grant_id))


# -- the authorize step (auth_challenges) -----------------------------------------------


async def sweep(conn: asyncpg.Connection) -> None:
    """Requests and codes expired for over an hour: nothing can use or recognise them."""
    await conn.execute(
        "DELETE FROM auth_challenges WHERE purpose IN ('oauth_request', 'oauth_code')"
        " AND expires_at < now() - interval '1 hour'"
    )


async def remember_request(
    conn: asyncpg.Connection, *, key: str, data: dict[str, Any], lifetime: timedelta
) -> None:
    await conn.execute(
        "INSERT INTO auth_challenges (id, purpose, data, expires_at)"
        " VALUES ($1, 'oauth_request', $2, now() + $3)",
        key,
        data,
        lifetime,
    )


async def request(conn: asyncpg.Connection, *, key: str) -> dict[str, Any] | None:
    """A pending, unexpired request's data (it stays pending)."""
    data = await conn.fetchval(
        "SELECT data FROM auth_challenges WHERE id = $1 AND purpose = 'oauth_request'"
        " AND expires_at > now()",
        key,
    )
    return None if data is None else dict(data)


async def take_request(conn: asyncpg.Connection, *, key: str) -> dict[str, Any] | None:
    """A pending, unexpired request's data, used up."""
    data = await conn.fetchval(
        "DELETE FROM auth_challenges WHERE id = $1 AND purpose = 'oauth_request'"
        " AND expires_at > now() RETURNING data",
        key,
    )
    return None if data is None else dict(data)


async def remember_code(
    conn: asyncpg.Connection,
    *,
    key: str,
    user_id: str,
    data: dict[str, Any],
    lifetime: timedelta,
) -> None:
    await conn.execute(
        "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
        " VALUES ($1, 'oauth_code', $2, $3, now() + $4)",
        key,
        user_id,
        data,
        lifetime,
    )


@dataclass(frozen=True, slots=True)
class CodeRow:
    data: dict[str, Any]
    user_id: str
    valid_until: float  # epoch seconds: the row's expiry less how long it is `kept`


async def code(conn: asyncpg.Connection, *, key: str, kept: timedelta) -> CodeRow | None:
    """An issued code, used or not, expired or not (a used one stays `kept` past its
    validity, so presenting it again is recognised)."""
    row = await conn.fetchrow(
        "SELECT data, user_id, extract(epoch FROM expires_at) - $2 AS valid_until"
        " FROM auth_challenges WHERE id = $1 AND purpose = 'oauth_code'",
        key,
        kept.total_seconds(),
    )
    if row is None:
        return None
    return CodeRow(data=row["data"], user_id=row["user_id"], valid_until=float(row["valid_until"]))


async def use_code(conn: asyncpg.Connection, *, key: str) -> dict[str, Any] | None:
    """Marks an unused code used and gives its data; None if it was used (or never issued)."""
    data = await conn.fetchval(
        "UPDATE auth_challenges SET data = data || '{\"used\": true}'::jsonb"
        " WHERE id = $1 AND purpose = 'oauth_code' AND NOT (data->>'used')::boolean"
        " RETURNING data",
        key,
    )
    return None if data is None else dict(data)


async def code_grant(conn: asyncpg.Connection, *, key: str) -> int | None:
    """The connected app an issued code was for."""
    found = await conn.fetchval(
        "SELECT (data->>'grant_id')::bigint FROM auth_challenges"
        " WHERE id = $1 AND purpose = 'oauth_code'",
        key,
    )
    return None if found is None else int(found)


# -- tokens -----------------------------------------------------------------------------


async def drop_expired_tokens(conn: asyncpg.Connection, *, grant_id: int) -> None:
    await conn.execute(
        "DELETE FROM oauth_tokens WHERE grant_id = $1 AND expires_at < now()", grant_id
    )


async def insert_token(
    conn: asyncpg.Connection,
    *,
    token_hash: bytes,
    grant_id: int,
    kind: str,
    resource: str,
    lifetime: timedelta,
    grant_max: timedelta,
) -> int | None:
    """A token for the connected app, living `lifetime` but never past the consent's age
    `grant_max`; the seconds it is good for (0 once the consent is that old), None if the
    app is gone."""
    seconds = await conn.fetchval(
        """INSERT INTO oauth_tokens (token_hash, grant_id, kind, resource, expires_at)
        SELECT $1, g.id, $3, $4, least(now() + $5::interval, g.created_at + $6::interval)
        FROM oauth_grants g WHERE g.id = $2
        RETURNING greatest(0, extract(epoch FROM expires_at - now()))::int AS seconds""",
        token_hash,
        grant_id,
        kind,
        resource,
        lifetime,
        grant_max,
    )
    return None if seconds is None else int(seconds)


@dataclass(frozen=True, slots=True)
class TokenRow:
    grant_id: int
    user_id: str
    client_id: str
    resource: str
    expires_at: float  # epoch seconds
    used: bool  # a refresh token that was rotated


async def token(conn: asyncpg.Connection, *, token_hash: bytes, kind: str) -> TokenRow | None:
    row = await conn.fetchrow(
        """SELECT t.grant_id, g.user_id, g.client_id, t.resource,
            extract(epoch FROM t.expires_at) AS expires_at,
            t.used_at IS NOT NULL AS used
        FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
        WHERE t.token_hash = $1 AND t.kind = $2""",
        token_hash,
        kind,
    )
    if row is None:
        return None
    return TokenRow(
        grant_id=row["grant_id"],
        user_id=row["user_id"],
        client_id=row["client_id"],
        resource=row["resource"],
        expires_at=float(row["expires_at"]),
        used=row["used"],
    )


@dataclass(frozen=True, slots=True)
class Rotated:
    grant_id: int
    resource: str


async def use_refresh(conn: asyncpg.Connection, *, token_hash: bytes) -> Rotated | None:
    """Uses up an unused, unexpired refresh token."""
    row = await conn.fetchrow(
        "UPDATE oauth_tokens SET used_at = now() WHERE token_hash = $1 AND kind = 'refresh'"
        " AND used_at IS NULL AND expires_at > now() RETURNING grant_id, resource",
        token_hash,
    )
    return None if row is None else from_row(Rotated, row)
