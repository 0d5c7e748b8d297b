"""An authenticator app as a second factor (TOTP, RFC 6238, through `pyotp`): with it on, a
right password alone makes no session (ASVS 6.3.3). The password answers with a one-time
challenge instead (a random secret; its digest is a short-lived `auth_challenges` row bound to
the account), and the session comes from the challenge with a code of the app or one of ten
recovery codes.

What holds against someone who has the password:
- every code is reserved against the account's and the address's sign-in limits before it is
  checked (throttle.reserve), like a password: a burst gets the free attempts, then 429; and
  the right password never resets what wrong codes counted (its attempt is only taken back);
- a code is accepted once: the accepted time step is stored, and a code of that step or an
  earlier one is refused (one atomic UPDATE, so two requests with one code get one session);
  the clock may drift one step (30 s) either way;
- a recovery code works once (its digest leaves the row in the same UPDATE that accepts it).

The secret is shown only when the app is being set up and is never logged; it has to stay
readable to the server, which must compute the codes too.
"""

from __future__ import annotations

import base64
import hmac
import re
import secrets
import time
from dataclasses import dataclass

import pyotp

from parley.config import Settings
from parley.db import Database, retry_on_reconnect
from parley.errors import ParleyError, Unauthorized

from . import store, store_challenges, store_factors, throttle
from .hashing import digest, new_secret

ISSUER = "Parley"
STEP_SECONDS = 30
DRIFT_STEPS = 1  # a code of the step before or after this one is still accepted
CHALLENGE_SECONDS = 300
CHALLENGE_PURPOSE = "second_factor"
RECOVERY_CODES = 10
METHODS = ["totp", "recovery_code"]
_TOTP_CODE = re.compile(r"[0-9]{6}")
_RECOVERY_SEPARATORS = re.compile(r"[\s-]+")


class InvalidCode(Unauthorized):
    code = "invalid_code"


class SecondFactorRequired(Unauthorized):
    """The password was right; a code of the authenticator app (or a recovery code) is
    still needed, sent with `challenge`."""

    code = "second_factor_required"


@dataclass(frozen=True)
class Setup:
    secret: str
    otpauth_uri: str


@dataclass(frozen=True)
class Status:
    enabled: bool
    pending: bool
    recovery_codes_left: int


@retry_on_reconnect
async def status(db: Database, *, user_id: str) -> Status:
    async with db.connection() as conn:
        row = await store_factors.factor_state(conn, user_id=user_id)
    if row is None:
        return Status(enabled=False, pending=False, recovery_codes_left=0)
    enabled = bool(row.enabled)
    return Status(
        enabled=enabled, pending=not enabled, recovery_codes_left=row.left_ if enabled else 0
    )


@retry_on_reconnect
async def is_on(db: Database, *, user_id: str) -> bool:
    async with db.connection() as conn:
        return await store_factors.factor_on(conn, user_id=user_id)


async def begin(db: Database, *, user_id: str) -> Setup:
    """A new secret for the app, pending until `confirm` (a pending one is replaced). 409
    `second_factor_on` when the app is already on: it is turned off first; 404 `no_account`
    for a person signed in by a token who has no account."""
    if await store.get(db, user_id=user_id) is None:  # a token's person may have none
        raise ParleyError("This user has no account", code="no_account", status=404)
    secret = pyotp.random_base32()
    async with db.connection() as conn:
        begun = await store_factors.begin_factor(conn, user_id=user_id, secret=secret)
    if not begun:
        raise ParleyError(
            "The authenticator app is already on: turn it off first to set up another",
            code="second_factor_on",
            status=409,
        )
    uri = pyotp.TOTP(secret).provisioning_uri(name=user_id, issuer_name=ISSUER)
    return Setup(secret=secret, otpauth_uri=uri)


def _matching_step(secret: str, code: str) -> int | None:
    """The time step (within the drift) whose code `code` is, else None."""
    if not _TOTP_CODE.fullmatch(code):
        return None
    totp = pyotp.TOTP(secret, interval=STEP_SECONDS)
    now = int(time.time()) // STEP_SECONDS
    found = None
    for step in range(now - DRIFT_STEPS, now + DRIFT_STEPS + 1):
        if hmac.compare_digest(totp.generate_otp(step), code):
            found = step
    return found


def _new_recovery_code() -> str:
    """120 random bits (ASVS 6.5.2: from 112 bits on, a plain SHA-256 may keep a lookup
    secret), in lower-case base32 shown as six groups of four."""
    raw = base64.b32encode(secrets.token_bytes(15)).decode().lower()
    return "-".join(raw[i : i + 4] for i in range(0, len(raw), 4))


def _recovery_digest(code: str) -> bytes:
    return digest(_RECOVERY_SEPARATORS.sub("", code).lower())


async def confirm(db: Database, *, user_id: str, code: str) -> list[str]:
    """Turns the pending app on with its first right code; returns the recovery codes (the
    only time they are shown)."""
    async with db.connection() as conn:
        secret = await store_factors.factor_secret(conn, user_id=user_id, enabled=False)
    if secret is None:
        raise ParleyError(
            "No authenticator app is being set up: start again",
            code="no_second_factor_setup",
            status=409,
        )
    step = _matching_step(secret, code.strip())
    if step is None:
        # 422, not 401: the session that asked is fine, only the code is wrong
        raise InvalidCode(
            "That code is not right: type the code your app shows now",
            status=422,
            details=[{"field": "code"}],
        )
    codes = [_new_recovery_code() for _ in range(RECOVERY_CODES)]
    async with db.connection() as conn:
        enabled = await store_factors.enable_factor(
            conn,
            user_id=user_id,
            secret=secret,
            step=step,
            recovery=[_recovery_digest(c) for c in codes],
        )
    if not enabled:
        raise ParleyError(
            "The setup changed meanwhile: start again", code="no_second_factor_setup", status=409
        )
    return codes


async def disable(db: Database, *, user_id: str) -> None:
    async with db.connection() as conn:
        await store_factors.delete_factor(conn, user_id=user_id)


async def challenge(db: Database, *, user_id: str) -> SecondFactorRequired:
    """The answer to a right password when the app is on: a new one-time challenge."""
    secret = new_secret()
    async with db.connection() as conn:
        await store_challenges.sweep(conn)
        await store_challenges.remember(
            conn,
            key=digest(secret).hex(),
            purpose=CHALLENGE_PURPOSE,
            user_id=user_id,
            data={},
            seconds=CHALLENGE_SECONDS,
        )
    return SecondFactorRequired(
        "Enter the code your authenticator app shows (or a recovery code)",
        challenge=secret,
        methods=METHODS,
        expires_in_seconds=CHALLENGE_SECONDS,
    )


async def _accept(db: Database, *, user_id: str, code: str) -> bool:
    """Whether `code` is a right, unused code of the account's app or recovery codes; using
    it up if so."""
    async with db.connection() as conn:
        secret = await store_factors.factor_secret(conn, user_id=user_id, enabled=True)
        if secret is None:
            return False
        step = _matching_step(secret, code)
        if step is not None:
            return await store_factors.use_step(conn, user_id=user_id, step=step)
        return await store_factors.use_recovery(
            conn, user_id=user_id, code_hash=_recovery_digest(code)
        )


async def finish(
    db: Database, *, settings: Settings, challenge: str, code: str, address: str
) -> store.AccountRecord:
    """The account whose challenge this is, if `code` is right: the challenge is used up.
    An unknown or expired challenge is 401 `challenge_expired` (sign in again); a wrong code
    is 401 `invalid_code`, counted against the sign-in limits before it is checked."""
    key = digest(challenge[:200]).hex()
    async with db.connection() as conn:
        user_id = await store_challenges.owner(conn, key=key, purpose=CHALLENGE_PURPOSE)
    if user_id is None:
        raise Unauthorized(
            "This sign-in has expired or was already used: sign in again",
            code="challenge_expired",
        )
    reservation = await throttle.reserve(db, settings=settings, login=user_id, address=address)
    if not await _accept(db, user_id=user_id, code=code.strip()):
        await throttle.failed(db, reservation)
        raise InvalidCode("That code is not right")
    async with db.connection() as conn:
        used = await store_challenges.use_up(
            conn, key=key, purpose=CHALLENGE_PURPOSE, user_id=user_id
        )
    account = await store.get(db, user_id=user_id)
    if not used or account is None or account.disabled:
        raise Unauthorized(
            "This sign-in has expired or was already used: sign in again",
            code="challenge_expired",
        )
    await throttle.succeeded(db, reservation)
    return account
