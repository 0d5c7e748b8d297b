"""Sign-up and sign-in with a password, over real HTTP against real PostgreSQL."""

from __future__ import annotations

import asyncio
import time

import httpx

from parley.accounts import hashing
from parley.accounts.hashing import verify_password
from tests.accounts.helpers import PASSWORD, browser, signup


async def test_open_signup_sets_an_httponly_session_cookie_and_stores_only_argon2id(
    make_server, db
):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        response = await signup(web, "alice", email="Alice@Example.com")
        assert response.json() == {
            "user_id": "alice",
            "email": "alice@example.com",
            "is_admin": False,
        }
        cookie = response.headers["set-cookie"]
        assert cookie.startswith("parley_session=")
        lowered = cookie.lower()
        assert "httponly" in lowered and "samesite=lax" in lowered and "path=/" in lowered
        assert "secure" not in lowered  # served over http here
        me = await web.get("/api/auth/me")
        assert me.json() == {
            "user_id": "alice",
            "email": "alice@example.com",
            "is_admin": False,
            "agent": None,
            "via": "session",
            "email_verified": False,  # typed at sign-up: nobody proved it yet
            "sso_linked": False,
        }
        async with db.connection() as conn:
            stored = await conn.fetchval("SELECT password_hash FROM accounts")
            session_hash = await conn.fetchval("SELECT token_hash FROM web_sessions")
        assert stored.startswith("$argon2id$") and PASSWORD not in stored
        assert await verify_password(PASSWORD, stored)
        value = web.cookies["parley_session"]
        assert value.encode() not in session_hash and len(session_hash) == 32  # a digest


async def test_signup_needs_an_invite_by_default_and_a_free_user_id(make_server, server, db):
    async with browser(server.base_url) as web:  # the default: PARLEY_SIGNUP=invite
        refused = await web.post("/api/auth/signup", json={"user_id": "x", "password": PASSWORD})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "signup_closed"
        config = await web.get("/api/auth/config")
        assert config.json()["signup"] == "invite" and config.json()["passkeys"] is True
    async with (
        make_server(PARLEY_SIGNUP="open") as open_server,
        browser(open_server.base_url) as web,
    ):
        # bob has data but no account: open sign-up may not claim it
        assert (await open_server.chat("bob", "add a task to call mum")).status_code == 200
        taken = await web.post("/api/auth/signup", json={"user_id": "bob", "password": PASSWORD})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "user_id_taken"
        short = await web.post("/api/auth/signup", json={"user_id": "carl", "password": "short"})
        assert short.status_code == 422
        await signup(web, "carl")
        again = await web.post("/api/auth/signup", json={"user_id": "carl", "password": PASSWORD})
        assert again.status_code == 409
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT array_agg(user_id) FROM accounts") == ["carl"]


async def test_wrong_name_or_password_is_one_generic_401_doing_the_same_work(
    make_server, monkeypatch, db
):
    """An unknown name is refused after the same Argon2id verification as a wrong password, so
    its answer takes as long (asserted on the work done, not on a clock: timing under load is
    the bench's business) and says nothing about which accounts exist."""
    verified: list[str] = []
    real = hashing._hasher

    class Counting:
        def verify(self, stored: str, password: str) -> bool:
            verified.append(stored.split("$")[1])
            return real.verify(stored, password)

        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

    monkeypatch.setattr(hashing, "_hasher", Counting())
    async with (
        make_server(
            PARLEY_SIGNUP="open", PARLEY_LOGIN_FREE_ATTEMPTS=100, PARLEY_ADDRESS_FREE_ATTEMPTS=100
        ) as server,
        browser(server.base_url) as web,
    ):
        await signup(web, "alice", email="alice@example.com")
        async with db.connection() as conn:  # as if its link was followed: it signs in
            await conn.execute("UPDATE accounts SET email_verified_at = now()")
        web.cookies.clear()
        for login in ("alice", "alice@example.com", "ALICE@example.com"):
            ok = await web.post("/api/auth/login", json={"login": login, "password": PASSWORD})
            assert ok.status_code == 200, (login, ok.text)
            assert ok.json()["user_id"] == "alice" and "set-cookie" in ok.headers
        web.cookies.clear()

        async def refused(login: str, password: str) -> tuple[dict[str, object], list[str]]:
            verified.clear()
            response = await web.post(
                "/api/auth/login", json={"login": login, "password": password}
            )
            assert response.status_code == 401
            assert "set-cookie" not in response.headers
            return response.json(), list(verified)

        wrong_password, work_wrong = await refused("alice", "nope-nope")
        unknown_user, work_unknown = await refused("nobody", "nope-nope")
        assert wrong_password["error"]["code"] == "invalid_credentials"  # type: ignore[index]
        assert unknown_user == wrong_password  # the same words, whichever was wrong
        assert work_wrong == work_unknown == ["argon2id"]  # one Argon2id check each


async def test_twenty_wrong_passwords_are_slowed_and_the_right_one_works_after_the_wait(
    make_server,
):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        await signup(web, "alice")
        web.cookies.clear()
        statuses, retry_after = [], []
        for _ in range(20):
            r = await web.post("/api/auth/login", json={"login": "alice", "password": "wrong-one"})
            statuses.append(r.status_code)
            if r.status_code == 429:
                retry_after.append(int(r.headers["retry-after"]))
                assert r.json()["error"]["code"] == "rate_limited"
        assert statuses[:5] == [401] * 5  # PARLEY_LOGIN_FREE_ATTEMPTS
        assert statuses[5:] == [429] * 15, statuses
        assert all(1 <= s <= 2 for s in retry_after)
        # during the wait even the right password is refused (and does not extend the wait)
        refused = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert refused.status_code == 429
        started = time.monotonic()
        deadline = started + retry_after[-1] + 2
        while True:
            r = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
            if r.status_code == 200:
                break
            assert r.status_code == 429 and time.monotonic() < deadline, r.text
            await asyncio.sleep(int(r.headers["retry-after"]) / 4)
        assert r.json()["user_id"] == "alice"


async def test_a_cookie_post_from_another_site_is_refused_and_changes_nothing(make_server, db):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        await signup(web, "alice")
        cookie = {"parley_session": web.cookies["parley_session"]}
        async with httpx.AsyncClient(base_url=server.base_url, cookies=cookie) as plain:
            for headers in ({"Origin": "https://evil.example"}, {}, {"Origin": "null"}):
                r = await plain.post("/api/alice/tasks", json={"title": "csrf"}, headers=headers)
                assert r.status_code == 403, (headers, r.text)
                assert r.json()["error"]["code"] == "bad_origin"
                key = await plain.post(
                    "/api/alice/agent-keys", json={"agent": "evil"}, headers=headers
                )
                assert key.status_code == 403
            # a cross-site page may read nothing either way, but a GET with the cookie is fine
            assert (await plain.get("/api/alice/tasks")).json() == []
            # and a sign-in form posted from another site is refused too
            forged = await plain.post(
                "/api/auth/login",
                json={"login": "alice", "password": PASSWORD},
                headers={"Origin": "https://evil.example"},
            )
            assert forged.status_code == 403
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM tasks") == 0
            assert await conn.fetchval("SELECT count(*) FROM agent_keys") == 0
        ok = await web.post("/api/alice/tasks", json={"title": "mine"})
        assert ok.status_code == 201


async def test_logout_ends_the_session_and_a_password_change_ends_the_others(make_server):
    async with (
        make_server(PARLEY_SIGNUP="open") as server,
        browser(server.base_url) as laptop,
        browser(server.base_url) as phone,
    ):
        await signup(laptop, "alice")
        r = await phone.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert r.status_code == 200
        listed = (await laptop.get("/api/alice/sessions")).json()
        assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
        changed = await laptop.post(
            "/api/auth/password",
            json={"current_password": PASSWORD, "new_password": "a brand new one"},
        )
        assert changed.status_code == 204, changed.text
        assert (await phone.get("/api/auth/me")).status_code == 401
        assert (await laptop.get("/api/auth/me")).status_code == 200
        old = laptop.cookies["parley_session"]
        out = await laptop.post("/api/auth/logout")
        assert out.status_code == 204 and "parley_session" not in laptop.cookies
        async with browser(server.base_url) as thief:
            thief.cookies.set("parley_session", old)
            assert (await thief.get("/api/auth/me")).status_code == 401
        back = await phone.post(
            "/api/auth/login", json={"login": "alice", "password": "a brand new one"}
        )
        assert back.status_code == 200
        assert (
            await phone.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        ).status_code == 401


async def test_a_person_ends_another_of_their_sessions(make_server):
    async with (
        make_server(PARLEY_SIGNUP="open") as server,
        browser(server.base_url) as laptop,
        browser(server.base_url) as phone,
    ):
        await signup(laptop, "alice")
        await phone.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        other = [s for s in (await laptop.get("/api/alice/sessions")).json() if not s["current"]]
        assert len(other) == 1
        ended = await laptop.delete(f"/api/alice/sessions/{other[0]['id']}")
        assert ended.status_code == 204
        assert (await phone.get("/api/alice/tasks")).status_code == 401
        assert (await laptop.get("/api/alice/tasks")).status_code == 200


async def test_dev_login_sets_the_cookie_only_for_loopback_clients(server):
    async with browser(server.base_url) as web:
        r = await web.post("/api/auth/dev-login", json={"user_id": "dana"})
        assert r.status_code == 200 and "parley_session" in web.cookies
        assert (await web.get("/api/auth/me")).json()["via"] == "session"
        web.cookies.clear()
        # through a trusted (loopback) proxy on behalf of a remote browser: refused
        remote = await web.post(
            "/api/auth/dev-login",
            json={"user_id": "dana"},
            headers={"X-Forwarded-For": "203.0.113.9"},
        )
        assert remote.status_code == 404 and "parley_session" not in web.cookies
