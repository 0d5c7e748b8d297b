"""Secrets Parley hands out and how it keeps them: random values shown once, stored as a
SHA-256 digest (they are high-entropy, so a fast hash is enough), and passwords, which are
not, stored as Argon2id."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

PASSWORD_MIN = 8
PASSWORD_MAX = 1024

_hasher = PasswordHasher()  # Argon2id with the library's (RFC 9106 low-memory) parameters


@cache
def _dummy_hash() -> str:
    """Verified when the account does not exist (or has no password), so a wrong name costs
    the same time as a wrong password and does not tell which accounts exist. Made on first
    use: the commands that import this module but sign nobody in should not pay for it."""
    return _hasher.hash(secrets.token_urlsafe(16))


def new_secret(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def digest(value: str) -> bytes:
    return hashlib.sha256(value.encode()).digest()


async def hash_password(password: str) -> str:
    """Argon2id, off the event loop (it takes tens of milliseconds by design)."""
    return await asyncio.to_thread(_hasher.hash, password)


async def verify_password(password: str, stored: str | None) -> bool:
    """Whether `password` matches `stored`; with no stored hash, a dummy is checked so the
    answer takes as long as a real one."""

    def check() -> bool:
        try:
            return _hasher.verify(stored or _dummy_hash(), password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    return await asyncio.to_thread(check)
