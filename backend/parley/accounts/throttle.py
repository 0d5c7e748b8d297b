"""Guessing a password is slowed per account and per client, on every instance (the counters
are rows), and counted BEFORE the guess is checked: an attempt first reserves its place
(`reserve`, one database call that counts it as a failure against both keys, or refuses it),
and only then may Argon2 look at the password. So forty attempts at once get the free
attempts checked and the rest 429, exactly as forty in a row would. A success takes its
attempt back (`succeeded`).

A refused attempt (429) changes nothing: it cannot extend the wait, so an attacker can delay
an account by at most the current wait, never lock it out for good. The trade-off: once the
wait is over, the next attempt to reserve wins the single slot, whoever sends it; an attacker
who keeps guessing keeps the account waiting (up to PARLEY_LOGIN_DELAY_MAX at a time) and the
owner gets in when their attempt comes first (or with a passkey or single sign-on, which this
does not slow)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from parley import addresses
from parley.config import Settings
from parley.db import Database
from parley.errors import RateLimited

from . import store_challenges as store

# Counts older than this are forgotten.
WINDOW = timedelta(minutes=15)


def account_key(login: str) -> str:
    return "login:" + login.strip().lower()


def address_key(address: str) -> str:
    """An IPv4 client by its address, an IPv6 client by its /64 (addresses.group)."""
    return "address:" + addresses.group(address)


@dataclass(frozen=True)
class Reservation:
    """An attempt counted against `account` and `address` until it proves right; each key
    with its free attempts."""

    account: str
    address: str
    account_free: int
    address_free: int
    delay: float
    delay_max: float


async def reserve(
    db: Database, *, settings: Settings, login: str, address: str, purpose: str = "login"
) -> Reservation:
    """Counts one attempt at `login`'s secret from `address`, or raises 429 with the
    seconds to wait (counting nothing) while either is waiting out earlier attempts. Another
    `purpose` (guessing a device's code, say) counts under keys of its own, which nothing
    typed into the sign-in form can name (those all begin `login:` or `address:`)."""
    account, by_address = account_key(login), address_key(address)
    if purpose != "login":
        account, by_address = f"{purpose}:{account}", f"{purpose}:{by_address}"
    reservation = Reservation(
        account=account,
        address=by_address,
        account_free=settings.login_free_attempts,
        address_free=settings.address_free_attempts,
        delay=settings.login_delay,
        delay_max=settings.login_delay_max,
    )
    async with db.connection() as conn:
        wait = await store.reserve_attempt(
            conn,
            keys=[reservation.account, reservation.address],
            free=[reservation.account_free, reservation.address_free],
            delay=reservation.delay,
            delay_max=reservation.delay_max,
            window=WINDOW,
        )
    if wait is not None:
        seconds = max(1, math.ceil(float(wait)))
        raise RateLimited(
            f"Too many failed sign-ins; try again in {seconds} s", retry_after_seconds=seconds
        )
    return reservation


async def failed(db: Database, reservation: Reservation) -> None:
    """The secret was wrong. The attempt was counted when reserved, and a key it took past
    its free attempts has waited since; the wait now starts again from this answer, as long
    as it would have had the attempt been counted only now (a slow check does not shorten
    it). One statement per key, in the reservation's key order (never waiting on a
    reservation that holds the other)."""
    async with db.connection() as conn:
        for key, free in sorted(
            [
                (reservation.account, reservation.account_free),
                (reservation.address, reservation.address_free),
            ]
        ):
            await store.lock_out(
                conn,
                key=key,
                free=free,
                delay=reservation.delay,
                delay_max=reservation.delay_max,
            )


async def succeeded(db: Database, reservation: Reservation) -> None:
    """The secret was right: the account's count starts again, and the address's attempt is
    taken back (people behind one address who sign in fine never make it wait). The two
    statements lock one row each, so they never wait on a reservation holding the other."""
    async with db.connection() as conn:
        await store.clear(conn, key=reservation.account)
        await store.take_back(conn, key=reservation.address, free=reservation.address_free)


async def taken_back(db: Database, reservation: Reservation) -> None:
    """The password was right but a second factor is still to come: this attempt is taken
    back from both keys, and what earlier failures (wrong codes among them) counted stays, so
    the right password never resets the limit on guessing the code. One row at a time."""
    async with db.connection() as conn:
        for key, free in sorted(
            [
                (reservation.account, reservation.account_free),
                (reservation.address, reservation.address_free),
            ]
        ):
            await store.take_back(conn, key=key, free=free)
