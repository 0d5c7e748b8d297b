"""An authenticator app as a second factor (ASVS 6.3.3, 6.5), attacked over real HTTP against
real PostgreSQL by someone who knows the password: it alone makes no session; a code works
once and only near its time; guessing codes is limited like guessing passwords, in bursts too;
a challenge expires and is bound to its account; and only a fresh sign-in turns the app on
or off."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pyotp

from parley.db import Database
from tests.accounts.helpers import PASSWORD, bearer, browser, make_key, signup
from tests.accounts.soft_authenticator import SoftAuthenticator
from tests.security.test_sessions_and_reauth import PASSKEY_ORIGIN, _age_sessions, _passkey_sign_in

FAST = {"PARLEY_CREDENTIAL_CACHE_SECONDS": 0, "PARLEY_SIGNUP": "open"}
FREE = 5  # PARLEY_LOGIN_FREE_ATTEMPTS' default
LONG_WAIT = {"PARLEY_LOGIN_DELAY": 120, "PARLEY_LOGIN_DELAY_MAX": 600}


def code(secret: str, steps_ahead: int = 0) -> str:
    """The app's code for the current 30 s step (or one after it, which the drift allows)."""
    return pyotp.TOTP(secret).at(time.time() + 30 * steps_ahead)


def wrong_code(secret: str) -> str:
    """A code of none of the steps the server accepts now."""
    right = {pyotp.TOTP(secret).at(time.time() + 30 * d) for d in (-2, -1, 0, 1, 2)}
    return next(
        c for c in ("000000", "111111", "222222", "333333", "444444", "555555") if c not in right
    )


async def enrol(web: httpx.AsyncClient) -> tuple[str, list[str]]:
    """Turns the app on for the signed-in browser: its secret and recovery codes."""
    setup = await web.post("/api/auth/second-factor")
    assert setup.status_code == 201, setup.text
    secret = setup.json()["secret"]
    uri = setup.json()["otpauth_uri"]
    assert (
        uri.startswith("otpauth://totp/") and f"secret={secret}" in uri and "issuer=Parley" in uri
    )
    done = await web.post("/api/auth/second-factor/confirm", json={"code": code(secret)})
    assert done.status_code == 200, done.text
    recovery = done.json()["recovery_codes"]
    assert len(recovery) == 10 and len(set(recovery)) == 10
    return secret, recovery


async def password_step(web: httpx.AsyncClient, user: str = "alice") -> str:
    """A right password: no session, a challenge."""
    web.cookies.clear()
    r = await web.post("/api/auth/login", json={"login": user, "password": PASSWORD})
    assert r.status_code == 401, r.text
    error = r.json()["error"]
    assert error["code"] == "second_factor_required"
    assert error["methods"] == ["totp", "recovery_code"] and error["expires_in_seconds"] > 0
    assert "parley_session" not in web.cookies and "set-cookie" not in r.headers
    challenge: str = error["challenge"]
    return challenge


async def code_step(web: httpx.AsyncClient, challenge: str, value: str) -> httpx.Response:
    return await web.post(
        "/api/auth/login/second-factor",
        json={"challenge": challenge, "code": value},
        timeout=180,
    )


async def sessions_of(db: Database, user: str) -> int:
    async with db.connection() as conn:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM web_sessions WHERE user_id = $1", user
        )
    return count


async def test_with_the_app_on_a_password_alone_signs_nobody_in(make_server, db):
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        before = (await web.get("/api/auth/second-factor")).json()
        assert before == {"enabled": False, "pending": False, "recovery_codes_left": 0}
        # set up but not confirmed: nothing changes at sign-in yet
        pending = await web.post("/api/auth/second-factor")
        assert pending.status_code == 201
        assert (await web.get("/api/auth/second-factor")).json()["pending"] is True
        bad = await web.post("/api/auth/second-factor/confirm", json={"code": "000000x"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_code"
        secret, _ = await enrol(web)
        shown = (await web.get("/api/auth/second-factor")).json()
        assert shown == {"enabled": True, "pending": False, "recovery_codes_left": 10}
        assert secret not in (await web.get("/api/auth/second-factor")).text
        again = await web.post("/api/auth/second-factor")
        assert again.status_code == 409 and again.json()["error"]["code"] == "second_factor_on"
        async with db.connection() as conn:
            stored = await conn.fetchrow("SELECT * FROM second_factors WHERE user_id = 'alice'")
        assert stored["secret"] == secret  # the one set up and confirmed, not the replaced one

        sessions = await sessions_of(db, "alice")
        challenge = await password_step(web)
        assert (await web.get("/api/auth/me")).status_code == 401
        assert await sessions_of(db, "alice") == sessions
        # a wrong code, and codes of the wrong shape (fewer than the free attempts): refused
        for value in (wrong_code(secret), "12345", "٣٣٣٣٣٣", "x" * 64):
            r = await code_step(web, challenge, value)
            assert r.status_code in (401, 422), r.text
            assert "parley_session" not in web.cookies
        ok = await code_step(web, challenge, code(secret, steps_ahead=1))
        assert ok.status_code == 200, ok.text
        assert ok.json()["user_id"] == "alice"
        me = await web.get("/api/auth/me")
        assert me.status_code == 200 and me.json()["user_id"] == "alice"
        # the challenge was used up
        reused = await code_step(web, challenge, code(secret, steps_ahead=1))
        assert reused.status_code == 401
        assert reused.json()["error"]["code"] == "challenge_expired"


async def test_a_code_is_accepted_once_and_a_recovery_code_once(make_server, db):
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        secret, recovery = await enrol(web)
        # the code that confirmed the setup cannot sign in (same step)
        replay = await code_step(web, await password_step(web), code(secret))
        assert replay.status_code == 401 and replay.json()["error"]["code"] == "invalid_code"
        async with browser(server.base_url) as thief:
            # two sign-ins with one fresh code at once: one session
            fresh = code(secret, steps_ahead=1)
            both = await asyncio.gather(
                code_step(web, await password_step(web), fresh),
                code_step(thief, await password_step(thief), fresh),
            )
            assert sorted(r.status_code for r in both) == [200, 401], [r.text for r in both]
            # the thief who saw that code over the shoulder, with the password, a moment later
            stolen = await code_step(thief, await password_step(thief), fresh)
            assert stolen.status_code == 401 and stolen.json()["error"]["code"] == "invalid_code"
            # a recovery code, typed loosely, works once, even sent twice at once
            loose = recovery[0].upper().replace("-", " ")
            both = await asyncio.gather(
                code_step(web, await password_step(web), loose),
                code_step(thief, await password_step(thief), recovery[0]),
            )
            assert sorted(r.status_code for r in both) == [200, 401], [r.text for r in both]
            again = await code_step(thief, await password_step(thief), recovery[0])
            assert again.status_code == 401 and again.json()["error"]["code"] == "invalid_code"
        async with db.connection() as conn:
            hashes = await conn.fetchval(
                "SELECT recovery_hashes FROM second_factors WHERE user_id = 'alice'"
            )
        assert len(hashes) == 9  # the one used is gone
        assert all(c.encode() not in h for c in recovery for h in hashes)  # digests only


async def test_forty_wrong_codes_at_once_get_only_the_free_attempts(make_server, db):
    async with make_server(**FAST, **LONG_WAIT) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        secret, recovery = await enrol(web)
        challenge = await password_step(web)
        guess = wrong_code(secret)
        burst = await asyncio.gather(*(code_step(web, challenge, guess) for _ in range(40)))
        statuses = Counter(r.status_code for r in burst)
        assert statuses == {401: FREE, 429: 40 - FREE}, statuses
        for r in burst:
            if r.status_code == 429:
                assert r.json()["error"]["code"] == "rate_limited"
                assert int(r.headers["retry-after"]) >= 1
        # the right code and a recovery code now wait too; so does the password, and the
        # right password does not reset what the wrong codes counted
        assert (await code_step(web, challenge, code(secret, 1))).status_code == 429
        assert (await code_step(web, challenge, recovery[1])).status_code == 429
        r = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert r.status_code == 429
        assert await sessions_of(db, "alice") == 1  # only the sign-up's
        assert (await web.get("/api/auth/me")).status_code == 401


async def test_a_challenge_expires_and_is_bound_to_its_account(make_server, db):
    async with (
        make_server(**FAST) as server,
        browser(server.base_url) as alice,
        browser(server.base_url) as bob,
    ):
        await signup(alice, "alice")
        await signup(bob, "bob")
        alice_secret, _ = await enrol(alice)
        bob_secret, bob_recovery = await enrol(bob)
        alice_challenge = await password_step(alice, "alice")
        bob_challenge = await password_step(bob, "bob")
        # bob's own codes are no good with alice's challenge, and his challenge signs in bob
        for value in (code(bob_secret, 1), bob_recovery[0]):
            r = await code_step(bob, alice_challenge, value)
            assert r.status_code == 401 and "parley_session" not in bob.cookies
        ok = await code_step(bob, bob_challenge, code(bob_secret, 1))
        assert ok.status_code == 200 and ok.json()["user_id"] == "bob"
        assert (await bob.get("/api/auth/me")).json()["user_id"] == "bob"
        # a made-up challenge, and one of a passkey ceremony's purpose
        for made_up in ("x" * 43, "", alice_challenge.upper()):
            r = await code_step(alice, made_up, code(alice_secret, 1))
            assert r.status_code in (401, 422), r.text
        # an expired challenge signs nobody in, even with the right code
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE auth_challenges SET expires_at = now() - interval '1 second'"
                " WHERE purpose = 'second_factor'"
            )
        late = await code_step(alice, alice_challenge, code(alice_secret, 1))
        assert late.status_code == 401 and late.json()["error"]["code"] == "challenge_expired"
        assert "parley_session" not in alice.cookies
        assert await sessions_of(db, "alice") == 1  # only the sign-up's


async def test_turning_the_app_on_or_off_needs_a_recent_sign_in(make_server, db):
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        await _age_sessions(db, "alice", 60)
        r = await web.post("/api/auth/second-factor")
        assert r.status_code == 403 and r.json()["error"]["code"] == "reauth_required"
        # fresh again: on
        again = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert again.status_code == 200
        secret, _ = await enrol(web)
        await _age_sessions(db, "alice", 60)
        off = await web.delete("/api/auth/second-factor")
        assert off.status_code == 403 and off.json()["error"]["code"] == "reauth_required"
        assert (await web.get("/api/auth/second-factor")).json()["enabled"] is True
        # confirming by password is a sign-in: it needs the code too
        fresh = await code_step(web, await password_step(web), code(secret, 1))
        assert fresh.status_code == 200
        assert (await web.delete("/api/auth/second-factor")).status_code == 204
        assert (await web.get("/api/auth/second-factor")).json()["enabled"] is False
        web.cookies.clear()
        plain = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert plain.status_code == 200 and "parley_session" in web.cookies


async def test_an_agent_key_cannot_touch_it(make_server) -> None:
    """An agent's key acts for its person but never manages their sign-in."""
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        headers = bearer((await make_key(web, "alice"))["secret"])
        async with httpx.AsyncClient(base_url=server.base_url) as agent:
            for method, path in (
                ("POST", "/api/auth/second-factor"),
                ("DELETE", "/api/auth/second-factor"),
                ("GET", "/api/auth/second-factor"),
            ):
                r = await agent.request(method, path, headers=headers)
                assert r.status_code == 403, (path, r.text)


async def test_a_passkey_signs_in_without_the_code(make_server, db):
    """A passkey is two factors already (user verification is required): not asked for a code."""
    async with (
        make_server(**FAST) as server,
        browser(server.base_url) as web,
        browser(server.base_url) as phone,
    ):
        await signup(web, "alice")
        secret, _ = await enrol(web)
        assert secret
        phone.headers["Origin"] = PASSKEY_ORIGIN
        await _passkey_sign_in(phone, SoftAuthenticator(PASSKEY_ORIGIN), register_first=True)
        me = await phone.get("/api/auth/me")
        assert me.status_code == 200 and me.json()["user_id"] == "alice"
        # while the password still needs the code
        await password_step(web)
