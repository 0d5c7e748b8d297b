"""Accounts: who may sign in, under which `user_id`, and whether they are still allowed to."""

from __future__ import annotations

import re
from datetime import datetime

import asyncpg
from pydantic import ConfigDict

from parley.accounts.schemas import AccountOut
from parley.auth import validate_user_id
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound, ParleyError

from .hashing import PASSWORD_MAX, PASSWORD_MIN

EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")


class AccountRecord(AccountOut):
    """A row of `accounts`, validated by column name: the wire shape plus what never leaves
    the server (the password's hash, the disabled and revoked times)."""

    model_config = ConfigDict(frozen=True)
    password_hash: str | None
    disabled_at: datetime | None
    tokens_revoked_at: datetime | None

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None


_COLUMNS = "user_id, email, password_hash, is_admin, disabled_at, tokens_revoked_at"


def _record(row: asyncpg.Record | None) -> AccountRecord | None:
    return None if row is None else AccountRecord(**dict(row))


def clean_email(email: str | None) -> str | None:
    if email is None or not email.strip():
        return None
    cleaned = email.strip().lower()
    if not EMAIL_RE.fullmatch(cleaned):
        raise InvalidInput("email is not an email address", details=[{"field": "email"}])
    return cleaned


def check_password(password: str, field: str = "password") -> str:
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidInput(
            f"The password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            details=[{"field": field}],
        )
    return password


class UserIdTaken(ParleyError):
    status = 409
    code = "user_id_taken"


@retry_on_reconnect
async def get(db: Database, *, user_id: str) -> AccountRecord | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM accounts WHERE user_id = $1", user_id)
    return _record(row)


@retry_on_reconnect
async def find_by_login(db: Database, *, login: str) -> AccountRecord | None:
    """By user id (exactly) or by email (any case)."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM accounts WHERE user_id = $1 OR email = lower($1)"
            " ORDER BY user_id = $1 DESC LIMIT 1",
            login,
        )
    return _record(row)


@retry_on_reconnect
async def find_by_email(db: Database, *, email: str) -> AccountRecord | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM accounts WHERE email = lower($1)", email)
    return _record(row)


@retry_on_reconnect
async def find_by_oidc_subject(db: Database, *, subject: str) -> AccountRecord | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM accounts WHERE oidc_subject = $1", subject
        )
    return _record(row)


# Tables whose rows a user id owns: an id with rows here belongs to somebody already, and only
# an invite naming it (or the operator) may claim it.
_HAS_DATA = """SELECT EXISTS (SELECT 1 FROM conversations WHERE user_id = $1)
    OR EXISTS (SELECT 1 FROM tasks WHERE user_id = $1)"""


@retry_on_reconnect
async def has_data(db: Database, *, user_id: str) -> bool:
    async with db.connection() as conn:
        return bool(await conn.fetchval(_HAS_DATA, user_id))


async def create(
    db: Database,
    *,
    user_id: str,
    email: str | None = None,
    password_hash: str | None = None,
    is_admin: bool = False,
    oidc_subject: str | None = None,
    conn: asyncpg.Connection | None = None,
) -> AccountRecord:
    """A new account; 409 `user_id_taken` (or `email_taken`) when either is in use."""
    validate_user_id(user_id)
    sql = f"""INSERT INTO accounts (user_id, email, password_hash, is_admin, oidc_subject)
        VALUES ($1, $2, $3, $4, $5) RETURNING {_COLUMNS}"""
    args = (user_id, clean_email(email), password_hash, is_admin, oidc_subject)
    try:
        if conn is not None:
            row = await conn.fetchrow(sql, *args)
        else:
            async with db.connection() as own:
                row = await own.fetchrow(sql, *args)
    except asyncpg.UniqueViolationError as exc:
        if "email" in (exc.constraint_name or ""):
            raise ParleyError(
                "That email belongs to another account", code="email_taken", status=409
            ) from exc
        raise UserIdTaken("That user name is taken") from exc
    record = _record(row)
    assert record is not None
    return record


async def ensure(db: Database, *, user_id: str) -> AccountRecord:
    """The account of `user_id`, made (without a password) if it has none: dev sign-in."""
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO accounts (user_id) VALUES ($1) ON CONFLICT DO NOTHING", user_id
        )
        row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM accounts WHERE user_id = $1", user_id)
    record = _record(row)
    assert record is not None
    return record


async def set_password(db: Database, *, user_id: str, password_hash: str) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE accounts SET password_hash = $2 WHERE user_id = $1", user_id, password_hash
        )


async def link_oidc(db: Database, *, user_id: str, subject: str) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE accounts SET oidc_subject = $2 WHERE user_id = $1", user_id, subject
        )


async def set_disabled(db: Database, *, user_id: str, disabled: bool) -> None:
    """Disabling also ends the account's web sessions; its keys and tokens are refused
    because every check reads `disabled_at`."""
    async with db.transaction() as conn:
        done = await conn.execute(
            "UPDATE accounts SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now())"
            " END WHERE user_id = $1",
            user_id,
            disabled,
        )
        if done == "UPDATE 0":
            raise NotFound("No such account")
        if disabled:
            await conn.execute("DELETE FROM web_sessions WHERE user_id = $1", user_id)


async def revoke_tokens(db: Database, *, user_id: str) -> None:
    """Every `parley token` JWT issued for the user up to now stops working (one minted in the
    same second is refused too: `iat` counts whole seconds)."""
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO accounts (user_id, tokens_revoked_at) VALUES ($1, now())"
            " ON CONFLICT (user_id) DO UPDATE SET tokens_revoked_at = EXCLUDED.tokens_revoked_at",
            user_id,
        )
