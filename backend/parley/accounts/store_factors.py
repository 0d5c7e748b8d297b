"""What proves who signs in besides a password: the one store of `passkeys` (WebAuthn
credentials; only their id and public key are kept) and `second_factors` (an authenticator
app's secret and the digests of its recovery codes). Each function runs on the caller's
connection; one that uses something up (a time step, a recovery code) does it in the one
statement that checks it, so two requests at once never both succeed."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg
from pydantic import ConfigDict

from parley.accounts.schemas import PasskeyOut
from parley.models import Passkey, columns, from_row

# -- passkeys ---------------------------------------------------------------------------


class PasskeyRecord(PasskeyOut):
    """A row of `passkeys` (its key material left out), validated by column name: the wire
    shape."""

    model_config = ConfigDict(frozen=True)


_PASSKEY_COLUMNS = columns(Passkey, PasskeyRecord)


@dataclass(frozen=True, slots=True)
class PasskeyKey:
    """What checks a passkey's signature."""

    id: int
    user_id: str
    public_key: bytes
    sign_count: int


async def passkeys_of(conn: asyncpg.Connection, *, user_id: str) -> list[PasskeyRecord]:
    rows = await conn.fetch(
        f"SELECT {_PASSKEY_COLUMNS} FROM passkeys WHERE user_id = $1 ORDER BY id", user_id
    )
    return [from_row(PasskeyRecord, r) for r in rows]


async def has_passkey(conn: asyncpg.Connection, *, user_id: str) -> bool:
    return bool(
        await conn.fetchval("SELECT EXISTS (SELECT 1 FROM passkeys WHERE user_id = $1)", user_id)
    )


async def delete_passkey(conn: asyncpg.Connection, *, user_id: str, passkey_id: int) -> bool:
    """Whether the person had that passkey."""
    done = await conn.execute(
        "DELETE FROM passkeys WHERE id = $1 AND user_id = $2", passkey_id, user_id
    )
    return done != "DELETE 0"


async def credential_ids(conn: asyncpg.Connection, *, user_id: str) -> list[bytes]:
    rows = await conn.fetch("SELECT credential_id FROM passkeys WHERE user_id = $1", user_id)
    return [r["credential_id"] for r in rows]


async def insert_passkey(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    credential_id: bytes,
    public_key: bytes,
    sign_count: int,
    transports: list[str],
    name: str,
) -> PasskeyRecord:
    """Raises asyncpg's UniqueViolationError when the credential is registered already."""
    row = await conn.fetchrow(
        f"""INSERT INTO passkeys (user_id, credential_id, public_key, sign_count,
            transports, name) VALUES ($1, $2, $3, $4, $5, $6)
        RETURNING {_PASSKEY_COLUMNS}""",
        user_id,
        credential_id,
        public_key,
        sign_count,
        transports,
        name,
    )
    return from_row(PasskeyRecord, row)


async def passkey_key(conn: asyncpg.Connection, *, credential_id: bytes) -> PasskeyKey | None:
    row = await conn.fetchrow(
        "SELECT id, user_id, public_key, sign_count FROM passkeys WHERE credential_id = $1",
        credential_id,
    )
    return None if row is None else from_row(PasskeyKey, row)


async def passkey_used(conn: asyncpg.Connection, *, passkey_id: int, sign_count: int) -> None:
    await conn.execute(
        "UPDATE passkeys SET sign_count = $2, last_used_at = now() WHERE id = $1",
        passkey_id,
        sign_count,
    )


# -- the authenticator app --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FactorState:
    enabled: bool
    left_: int  # recovery codes left


async def factor_state(conn: asyncpg.Connection, *, user_id: str) -> FactorState | None:
    row = await conn.fetchrow(
        "SELECT enabled_at IS NOT NULL AS enabled, cardinality(recovery_hashes) AS left_"
        " FROM second_factors WHERE user_id = $1",
        user_id,
    )
    return None if row is None else from_row(FactorState, row)


async def factor_on(conn: asyncpg.Connection, *, user_id: str) -> bool:
    return bool(
        await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM second_factors WHERE user_id = $1"
            " AND enabled_at IS NOT NULL)",
            user_id,
        )
    )


async def begin_factor(conn: asyncpg.Connection, *, user_id: str, secret: str) -> bool:
    """A pending app with `secret` (replacing a pending one); False when one is on."""
    done = await conn.execute(
        "INSERT INTO second_factors (user_id, secret) VALUES ($1, $2)"
        " ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret,"
        " created_at = now(), last_step = NULL, recovery_hashes = '{}'"
        " WHERE second_factors.enabled_at IS NULL",
        user_id,
        secret,
    )
    return not done.endswith(" 0")


async def factor_secret(conn: asyncpg.Connection, *, user_id: str, enabled: bool) -> str | None:
    """The app's secret, if it is on (`enabled`) or pending (not)."""
    state = "IS NOT NULL" if enabled else "IS NULL"
    found = await conn.fetchval(
        f"SELECT secret FROM second_factors WHERE user_id = $1 AND enabled_at {state}", user_id
    )
    return None if found is None else str(found)


async def enable_factor(
    conn: asyncpg.Connection, *, user_id: str, secret: str, step: int, recovery: list[bytes]
) -> bool:
    """Turns the pending app with `secret` on; False when it changed meanwhile."""
    done = await conn.execute(
        "UPDATE second_factors SET enabled_at = now(), last_step = $3, recovery_hashes = $4"
        " WHERE user_id = $1 AND secret = $2 AND enabled_at IS NULL",
        user_id,
        secret,
        step,
        recovery,
    )
    return not done.endswith(" 0")


async def delete_factor(conn: asyncpg.Connection, *, user_id: str) -> None:
    await conn.execute("DELETE FROM second_factors WHERE user_id = $1", user_id)


async def use_step(conn: asyncpg.Connection, *, user_id: str, step: int) -> bool:
    """Takes the time step `step` if no later or equal one was used (a code works once)."""
    done = await conn.execute(
        "UPDATE second_factors SET last_step = $2 WHERE user_id = $1"
        " AND enabled_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)",
        user_id,
        step,
    )
    return bool(done == "UPDATE 1")


async def use_recovery(conn: asyncpg.Connection, *, user_id: str, code_hash: bytes) -> bool:
    """Uses up the recovery code with this digest, if the app is on and it is unused."""
    done = await conn.execute(
        "UPDATE second_factors SET recovery_hashes = array_remove(recovery_hashes, $2)"
        " WHERE user_id = $1 AND enabled_at IS NOT NULL AND $2 = ANY (recovery_hashes)",
        user_id,
        code_hash,
    )
    return bool(done == "UPDATE 1")
