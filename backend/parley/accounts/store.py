"""Accounts: who may sign in, under which `user_id`, and whether they are still allowed to.

The one store of `accounts` and `invites`: every statement on them is here, so a column or a
rule is changed in one file. The account's other rows have theirs beside it
(`store_credentials`: sessions, keys, passkeys, the authenticator app; `store_challenges`:
what a sign-in holds in flight). Functions taking `conn` run inside the caller's
transaction, with its locks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import asyncpg
import idna
from pydantic import ConfigDict

from parley.accounts.schemas import AccountOut
from parley.auth import validate_new_user_id
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound, ParleyError
from parley.models import Account, Invite, columns, from_row

EMAIL_RE = re.compile(r"^[^@\s]{1,64}@[^@\s]{1,255}$")


class AccountRecord(AccountOut):
    """A row of `accounts`, validated by column name: the wire shape plus what never leaves
    the server (the password's hash, the disabled and revoked times)."""

    model_config = ConfigDict(frozen=True)
    password_hash: str | None
    disabled_at: datetime | None
    tokens_revoked_at: datetime | None
    email_verified_at: datetime | None
    oidc_subject: str | None

    @property
    def disabled(self) -> bool:
        return self.disabled_at is not None

    @property
    def email_verified(self) -> bool:
        return self.email is not None and self.email_verified_at is not None


_COLUMNS = columns(Account, AccountRecord)


def _record(row: asyncpg.Record | None) -> AccountRecord | None:
    return None if row is None else from_row(AccountRecord, row)


def clean_email(email: str | None) -> str | None:
    """The one form an email is stored, sent to and compared in: trimmed, lower-cased, and an
    international domain in its ASCII (IDNA) form, so `Bücher.de` and `xn--bcher-kva.de` are
    one address while a look-alike (a Cyrillic "a" for a Latin one) stays another. Verification
    mail goes to exactly this string, so whoever verifies it receives mail there."""
    if email is None or not email.strip():
        return None
    cleaned = email.strip().lower()
    if not EMAIL_RE.fullmatch(cleaned):
        raise InvalidInput("email is not an email address", details=[{"field": "email"}])
    local, _, domain = cleaned.partition("@")
    if not domain.isascii():
        try:
            domain = idna.encode(domain, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise InvalidInput(
                "email is not an email address (its domain is not a valid name)",
                details=[{"field": "email"}],
            ) from exc
    return f"{local}@{domain}"


class UserIdTaken(ParleyError):
    status = 409
    code = "user_id_taken"


class EmailTaken(ParleyError):
    status = 409
    code = "email_taken"

    def __init__(self, message: str = "That email is verified by another account") -> None:
        super().__init__(message)


@retry_on_reconnect
async def get(db: Database, *, user_id: str) -> AccountRecord | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM accounts WHERE user_id = $1", user_id)
    return _record(row)


async def find_by_login(db: Database, *, login: str) -> AccountRecord | None:
    """A login with '@' is an email, and finds only the account that verified it (an
    unverified one is a claim anybody could have typed); anything else is a user id."""
    if "@" not in login:
        return await get(db, user_id=login)
    try:
        email = clean_email(login)
    except InvalidInput:
        return None
    return None if email is None else await find_by_verified_email(db, email=email)


@retry_on_reconnect
async def find_by_verified_email(db: Database, *, email: str) -> AccountRecord | None:
    """`email` as `clean_email` gives it."""
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM accounts WHERE email = $1 AND email_verified_at IS NOT NULL",
            email,
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


async def taken(conn: asyncpg.Connection, *, user_id: str) -> bool:
    """Whether an account or any data has `user_id` (inside the caller's transaction)."""
    return bool(
        await conn.fetchval(
            f"SELECT EXISTS (SELECT 1 FROM accounts WHERE user_id = $1) OR ({_HAS_DATA})",
            user_id,
        )
    )


async def owns_data(conn: asyncpg.Connection, *, user_id: str) -> bool:
    """`has_data`, inside the caller's transaction."""
    return bool(await conn.fetchval(_HAS_DATA, user_id))


async def locked(conn: asyncpg.Connection, *, user_id: str) -> AccountRecord | None:
    """The account, its row locked until the caller's transaction ends."""
    return _record(
        await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM accounts WHERE user_id = $1 FOR UPDATE", user_id
        )
    )


async def exists(conn: asyncpg.Connection, *, user_id: str) -> bool:
    return bool(await conn.fetchval("SELECT true FROM accounts WHERE user_id = $1", user_id))


async def any_admin(conn: asyncpg.Connection) -> bool:
    return bool(await conn.fetchval("SELECT EXISTS (SELECT 1 FROM accounts WHERE is_admin)"))


async def create(
    db: Database | None,
    *,
    user_id: str,
    email: str | None = None,
    password_hash: str | None = None,
    is_admin: bool = False,
    oidc_subject: str | None = None,
    email_verified: bool = False,
    conn: asyncpg.Connection | None = None,
) -> AccountRecord:
    """A new account; 409 `user_id_taken` when the id is in use, `email_taken` when the
    email is another account's verified one (whether this one's is verified or not: a
    second account could never verify it), `sso_taken` when the identity is linked."""
    validate_new_user_id(user_id)
    email = clean_email(email)
    sql = f"""INSERT INTO accounts (user_id, email, password_hash, is_admin, oidc_subject,
            email_verified_at)
        SELECT $1, $2, $3, $4, $5, CASE WHEN $6 AND $2::text IS NOT NULL THEN now() END
        WHERE $2::text IS NULL OR NOT EXISTS (
            SELECT 1 FROM accounts WHERE email = $2 AND email_verified_at IS NOT NULL)
        RETURNING {_COLUMNS}"""
    args = (user_id, email, password_hash, is_admin, oidc_subject, email_verified)
    try:
        if conn is not None:
            row = await conn.fetchrow(sql, *args)
        else:
            assert db is not None
            async with db.connection() as own:
                row = await own.fetchrow(sql, *args)
    except asyncpg.UniqueViolationError as exc:
        if "email" in (exc.constraint_name or ""):
            raise EmailTaken() from exc
        if "oidc" in (exc.constraint_name or ""):
            raise ParleyError(
                "This single sign-on identity is already linked to another account",
                code="sso_taken",
                status=409,
            ) from exc
        raise UserIdTaken("That user name is taken") from exc
    record = _record(row)
    if record is None:
        raise EmailTaken()
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


# -- email ------------------------------------------------------------------------------


async def verified_elsewhere(conn: asyncpg.Connection, *, email: str, user_id: str) -> bool:
    """Whether an account other than `user_id` verified `email`."""
    return bool(
        await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM accounts WHERE email = $1"
            " AND email_verified_at IS NOT NULL AND user_id <> $2)",
            email,
            user_id,
        )
    )


async def email_exists(conn: asyncpg.Connection, *, email: str) -> bool:
    """Whether any account has `email`, verified or not."""
    return bool(
        await conn.fetchval("SELECT EXISTS (SELECT 1 FROM accounts WHERE email = $1)", email)
    )


async def set_email(conn: asyncpg.Connection, *, user_id: str, email: str | None) -> None:
    """A new email, unverified."""
    await conn.execute(
        "UPDATE accounts SET email = $2, email_verified_at = NULL WHERE user_id = $1",
        user_id,
        email,
    )


async def mark_verified(conn: asyncpg.Connection, *, user_id: str, email: str) -> bool:
    """Marks `email` verified if it is still the account's; 409 `email_taken` when another
    account verified it first (the unique index on verified emails says so)."""
    try:
        done = await conn.execute(
            "UPDATE accounts SET email_verified_at = now() WHERE user_id = $1 AND email = $2",
            user_id,
            email,
        )
    except asyncpg.UniqueViolationError as exc:
        raise EmailTaken() from exc
    return done != "UPDATE 0"


# -- single sign-on ---------------------------------------------------------------------


async def lock_identity(conn: asyncpg.Connection, *, subject: str) -> None:
    """Serialises everything done for one identity until the caller's transaction ends."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", subject)


async def by_subject(conn: asyncpg.Connection, *, subject: str) -> AccountRecord | None:
    return _record(
        await conn.fetchrow(f"SELECT {_COLUMNS} FROM accounts WHERE oidc_subject = $1", subject)
    )


@dataclass(frozen=True, slots=True)
class Joined:
    user_id: str
    disabled: bool


async def join_by_verified_email(
    conn: asyncpg.Connection, *, email: str, subject: str
) -> Joined | None:
    """Links `subject` to the account that verified `email`, if it is linked to no identity."""
    row = await conn.fetchrow(
        "UPDATE accounts SET oidc_subject = $2 WHERE email = $1"
        " AND email_verified_at IS NOT NULL AND oidc_subject IS NULL"
        " RETURNING user_id, disabled_at IS NOT NULL AS disabled",
        email,
        subject,
    )
    return None if row is None else from_row(Joined, row)


async def set_subject(conn: asyncpg.Connection, *, user_id: str, subject: str) -> None:
    await conn.execute("UPDATE accounts SET oidc_subject = $2 WHERE user_id = $1", user_id, subject)


# -- invites ----------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class InviteRecord:
    id: int
    email: str | None
    user_id: str | None
    is_admin: bool
    expires_at: datetime


_INVITE = columns(Invite, InviteRecord)


async def insert_invite(
    conn: asyncpg.Connection,
    *,
    token_hash: bytes,
    email: str | None,
    user_id: str | None,
    is_admin: bool,
    created_by: str | None,
    lifetime: timedelta,
) -> InviteRecord:
    row = await conn.fetchrow(
        f"""INSERT INTO invites (token_hash, email, user_id, is_admin, created_by, expires_at)
        VALUES ($1, $2, $3, $4, $5, now() + $6) RETURNING {_INVITE}""",
        token_hash,
        email,
        user_id,
        is_admin,
        created_by,
        lifetime,
    )
    return from_row(InviteRecord, row)


async def usable_invite(conn: asyncpg.Connection, *, token_hash: bytes) -> InviteRecord | None:
    """The invite if it is unused and unexpired."""
    row = await conn.fetchrow(
        f"SELECT {_INVITE} FROM invites WHERE token_hash = $1"
        " AND used_at IS NULL AND expires_at > now()",
        token_hash,
    )
    return None if row is None else from_row(InviteRecord, row)


async def use_invite(
    conn: asyncpg.Connection, *, token_hash: bytes, user_id: str
) -> InviteRecord | None:
    """Marks the invite used by `user_id`, if it still was usable."""
    row = await conn.fetchrow(
        f"""UPDATE invites SET used_at = now(), used_by = $2 WHERE token_hash = $1
        AND used_at IS NULL AND expires_at > now() RETURNING {_INVITE}""",
        token_hash,
        user_id,
    )
    return None if row is None else from_row(InviteRecord, row)
