"""Guessing passwords: the sign-in limits hold against bursts, on two instances, per IPv6 /64,
and through every door that checks a password (sign-in, the current password of a password
change). An attempt reserves its place before Argon2 looks at it, so the number of guesses
really checked (counted in Argon2 itself) never passes the free attempts, however many are
sent at once."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import httpx

from parley.db import Database
from tests.accounts.helpers import PASSWORD, browser, signup
from tests.conftest import eventually
from tests.security.peers import count_argon2

FREE = 5  # PARLEY_LOGIN_FREE_ATTEMPTS' default
# Long enough that no wait ends during a burst on a loaded machine: what the burst gets
# through is then what the limits let through, not what the clock did.
LONG_WAIT = {"PARLEY_LOGIN_DELAY": 120, "PARLEY_LOGIN_DELAY_MAX": 600}
# Thirty Argon2 checks at once take a while on two loaded cores.
PATIENT = 180


async def _login(
    client: httpx.AsyncClient, login: str, password: str, **headers: str
) -> httpx.Response:
    return await client.post(
        "/api/auth/login",
        json={"login": login, "password": password},
        headers=headers,
        timeout=PATIENT,
    )


def _statuses(responses: list[httpx.Response]) -> Counter[int]:
    return Counter(r.status_code for r in responses)


def _refused_properly(responses: list[httpx.Response]) -> None:
    for r in responses:
        if r.status_code == 429:
            assert r.json()["error"]["code"] == "rate_limited"
            assert int(r.headers["retry-after"]) >= 1
            assert "set-cookie" not in r.headers


async def _locked_until(db: Database, key: str) -> Any:
    async with db.connection() as conn:
        return await conn.fetchval("SELECT locked_until FROM login_throttle WHERE key = $1", key)


async def test_forty_wrong_passwords_at_once_get_only_the_free_attempts_checked(
    make_server, monkeypatch
):
    argon2 = count_argon2(monkeypatch)
    async with (
        make_server(PARLEY_SIGNUP="open", **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        await signup(web, "alice")
        web.cookies.clear()
        argon2.verified = 0
        burst = await asyncio.gather(*(_login(web, "alice", f"guess-{i}") for i in range(40)))
        assert _statuses(burst) == {401: FREE, 429: 40 - FREE}, _statuses(burst)
        assert argon2.verified == FREE  # the other 35 were never looked at
        _refused_properly(burst)
        assert "parley_session" not in web.cookies


async def test_the_right_password_is_refused_once_the_free_attempts_are_taken(
    make_server, monkeypatch, db
):
    """The attacker's five guesses are still being checked (held inside Argon2) when the
    right password arrives with more guesses: checking before counting let all of them in,
    the right one included. Reserved first, none of them is looked at."""
    argon2 = count_argon2(monkeypatch)
    async with (
        make_server(PARLEY_SIGNUP="open", **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        await signup(web, "alice")
        web.cookies.clear()
        argon2.verified = 0
        argon2.gate.clear()
        try:
            first = [asyncio.create_task(_login(web, "alice", f"g-{i}")) for i in range(FREE)]

            async def all_in_argon2() -> bool:
                return argon2.verified == FREE

            await eventually(all_in_argon2, within=30)
            later = await asyncio.gather(
                *(_login(web, "alice", f"h-{i}") for i in range(20)),
                _login(web, "alice", PASSWORD),
                *(_login(web, "ALICE ", f"k-{i}") for i in range(19)),
            )
        finally:
            argon2.gate.set()
        assert _statuses(later) == {429: 40}
        _refused_properly(later)
        assert _statuses(await asyncio.gather(*first)) == {401: FREE}
        assert argon2.verified == FREE
        assert "parley_session" not in web.cookies
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM web_sessions") == 1  # sign-up's


async def test_forty_accounts_at_once_from_one_address_get_at_most_its_limit_checked(
    make_server, monkeypatch
):
    argon2 = count_argon2(monkeypatch)
    async with (
        make_server(PARLEY_ADDRESS_FREE_ATTEMPTS=30, **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        argon2.verified = 0
        burst = await asyncio.gather(*(_login(web, f"user{i}", "password1") for i in range(40)))
        assert _statuses(burst) == {401: 30, 429: 10}
        assert argon2.verified == 30
        _refused_properly(burst)


async def test_two_instances_on_one_database_share_the_limits(make_server, monkeypatch):
    argon2 = count_argon2(monkeypatch)
    async with (
        make_server(PARLEY_SIGNUP="open", **LONG_WAIT) as one,
        make_server(PARLEY_SIGNUP="open", **LONG_WAIT) as two,
        browser(one.base_url) as web_one,
        browser(two.base_url) as web_two,
    ):
        await signup(web_one, "alice")
        web_one.cookies.clear()
        argon2.verified = 0
        burst = await asyncio.gather(
            *(_login(web_one if i % 2 else web_two, "alice", f"guess-{i}") for i in range(40))
        )
        assert _statuses(burst) == {401: FREE, 429: 40 - FREE}, _statuses(burst)
        assert argon2.verified == FREE  # five checks in all, whichever instance took them
        _refused_properly(burst)
        assert (await _login(web_two, "alice", PASSWORD)).status_code == 429
        assert (await _login(web_one, "alice", PASSWORD)).status_code == 429
    # and an address's limit is one count on both instances too
    async with (
        make_server(PARLEY_ADDRESS_FREE_ATTEMPTS=12, **LONG_WAIT) as one,
        make_server(PARLEY_ADDRESS_FREE_ATTEMPTS=12, **LONG_WAIT) as two,
        browser(one.base_url) as web_one,
        browser(two.base_url) as web_two,
    ):
        argon2.verified = 0
        elsewhere = {"X-Forwarded-For": "203.0.113.50"}  # not the address counted above
        burst = await asyncio.gather(
            *(
                _login(web_one if i % 2 else web_two, f"u{i}", "password1", **elsewhere)
                for i in range(40)
            )
        )
        assert _statuses(burst) == {401: 12, 429: 28}
        assert argon2.verified == 12


async def test_an_ipv6_client_is_counted_by_its_64_and_a_mapped_ipv4_as_ipv4(make_server, db):
    """Behind the web UI's (trusted, loopback) proxy, the forwarded address is the client.
    An attacker owning 2001:db8:1:2::/64 is one client however many of its addresses they
    use; the next /64 is someone else."""
    async with (
        make_server(PARLEY_ADDRESS_FREE_ATTEMPTS=3, **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        same_64 = ["2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:2:abcd::9"]
        for i, address in enumerate(same_64):
            r = await _login(web, f"a{i}", "password1", **{"X-Forwarded-For": address})
            assert r.status_code == 401
        fourth = await _login(web, "a9", "password1", **{"X-Forwarded-For": "2001:db8:1:2:f::1"})
        assert fourth.status_code == 429
        other = await _login(web, "b0", "password1", **{"X-Forwarded-For": "2001:db8:1:3::1"})
        assert other.status_code == 401
        # one IPv4 client, however it is spelt
        for i, spelling in enumerate(["198.51.100.7", "::ffff:198.51.100.7", "198.51.100.7:443"]):
            r = await _login(web, f"c{i}", "password1", **{"X-Forwarded-For": spelling})
            assert r.status_code == 401
        mapped = await _login(web, "c9", "password1", **{"X-Forwarded-For": "::FFFF:c633:6407"})
        assert mapped.status_code == 429
        async with db.connection() as conn:
            keys = {
                r["key"]
                for r in await conn.fetch(
                    "SELECT key FROM login_throttle WHERE key LIKE 'address:%'"
                )
            }
        assert keys == {
            "address:2001:db8:1:2::/64",
            "address:2001:db8:1:3::/64",
            "address:198.51.100.7",
        }


async def test_a_refused_attempt_never_extends_the_wait(make_server, db):
    """The owner is delayed by the current wait, never longer: forty more guesses and the
    right password during it change nothing, and once it is over the right password works."""
    async with (
        make_server(PARLEY_SIGNUP="open", PARLEY_LOGIN_DELAY=5) as server,
        browser(server.base_url) as web,
    ):
        await signup(web, "alice")
        web.cookies.clear()
        for i in range(FREE):
            assert (await _login(web, "alice", f"guess-{i}")).status_code == 401
        before = await _locked_until(db, "login:alice")
        assert before is not None
        burst = await asyncio.gather(
            *(_login(web, "alice", f"more-{i}") for i in range(40)),
            _login(web, "alice", PASSWORD),
        )
        assert _statuses(burst) == {429: 41}
        _refused_properly(burst)
        assert await _locked_until(db, "login:alice") == before

        async def the_owner_gets_in() -> bool:
            r = await _login(web, "alice", PASSWORD)  # each try before the end is a 429 too
            assert r.status_code in (200, 429), r.text
            return r.status_code == 200

        await eventually(the_owner_gets_in, within=30)
        assert (await web.get("/api/auth/me")).json()["user_id"] == "alice"


async def test_signing_in_fine_never_makes_an_address_wait(make_server):
    """Each attempt is counted against the address before it is checked; a success takes it
    back, so people behind one address sign in all day (each success here reaches the
    address's last free attempt, and gives it back)."""
    async with (
        make_server(PARLEY_SIGNUP="open", PARLEY_ADDRESS_FREE_ATTEMPTS=3, **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        for name in ("ann", "bob"):
            await signup(web, name)
        web.cookies.clear()
        assert (await _login(web, "nobody", "password1")).status_code == 401
        assert (await _login(web, "nobody", "password2")).status_code == 401
        for i in range(8):
            r = await _login(web, ("ann", "bob")[i % 2], PASSWORD)
            assert r.status_code == 200, (i, r.text)
        # the two failures still count: the third is the address's last free attempt
        assert (await _login(web, "nobody", "password3")).status_code == 401
        assert (await _login(web, "ann", PASSWORD)).status_code == 429


async def test_a_wrong_current_password_counts_against_the_sign_in_limits(
    make_server, monkeypatch, db
):
    """A session left open on someone else's screen must not be a way around the limits:
    guessing the current password (to set a new one) is reserved first too, and shares the
    account's count with sign-in."""
    argon2 = count_argon2(monkeypatch)
    async with (
        make_server(PARLEY_SIGNUP="open", **LONG_WAIT) as server,
        browser(server.base_url) as web,
    ):
        await signup(web, "alice")
        argon2.verified = 0

        async def change(current: str) -> httpx.Response:
            return await web.post(
                "/api/auth/password",
                json={"current_password": current, "new_password": "taken over at last"},
                timeout=PATIENT,
            )

        burst = await asyncio.gather(*(change(f"guess-{i}") for i in range(40)))
        assert _statuses(burst) == {401: FREE, 429: 40 - FREE}, _statuses(burst)
        assert argon2.verified == FREE
        _refused_properly(burst)
        # the right current password now waits too, and so does sign-in, the account's
        # other door; the password is unchanged
        assert (await change(PASSWORD)).status_code == 429
        async with browser(server.base_url) as other:
            assert (await _login(other, "alice", PASSWORD)).status_code == 429
        async with db.connection() as conn:
            stored = await conn.fetchval("SELECT password_hash FROM accounts")
        assert argon2.real.verify(stored, PASSWORD)
