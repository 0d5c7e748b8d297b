"""Web sessions and recent authentication (ASVS 5 V7), attacked over real HTTP against real
PostgreSQL: a sign-in never carries an older token on; sessions end when idle and at their
absolute end; a session or token that is not fresh cannot be turned into lasting access
(agent keys, apps, passkeys, a password, an email, single sign-on) nor sign its owner out
elsewhere, until its holder proves again who they are; admins end sessions."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import jwt as pyjwt

from parley.accounts.hashing import digest
from parley.api.app import create_app
from tests.accounts.conftest import CLIENT_ID, CLIENT_SECRET, oidc_provider
from tests.accounts.helpers import PASSWORD, bearer, browser, signup
from tests.accounts.soft_authenticator import SoftAuthenticator
from tests.accounts.test_admin import _parley_user as parley_user
from tests.accounts.test_oidc import parley_with_oidc, sign_in_through
from tests.conftest import SECRET, free_port, on_loopback, settings_for, token_for
from tests.oauth.helpers import authorize, consent_request, decide, pkce, query, register
from tests.security.test_account_linking import follow

FAST = {"PARLEY_CREDENTIAL_CACHE_SECONDS": 0, "PARLEY_SIGNUP": "open"}
PASSKEY_ORIGIN = "http://localhost:3000"


async def _age_sessions(db: Any, user: str, minutes: float) -> None:
    """As if the person's sessions were signed in `minutes` ago (and used since)."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE web_sessions SET created_at = now() - make_interval(mins => $2)"
            " WHERE user_id = $1",
            user,
            minutes,
        )


async def test_every_sign_in_makes_a_new_session_and_ends_the_browsers_old_one(make_server, db):
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        first = web.cookies["parley_session"]
        again = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert again.status_code == 200
        second = web.cookies["parley_session"]
        dev = await web.post("/api/auth/dev-login", json={"user_id": "alice"})
        assert dev.status_code == 200
        third = web.cookies["parley_session"]
        assert len({first, second, third}) == 3
        async with browser(server.base_url) as thief:
            for old in (first, second):
                thief.cookies.set("parley_session", old)
                assert (await thief.get("/api/auth/me")).status_code == 401
        assert (await web.get("/api/auth/me")).status_code == 200
        async with db.connection() as conn:
            stored = await conn.fetch("SELECT token_hash FROM web_sessions")
        assert [r["token_hash"] for r in stored] == [digest(third)]
        # a made-up cookie sent along with a sign-in ends nobody's session but its own
        async with browser(server.base_url) as other:
            other.cookies.set("parley_session", "x" * 5000)
            ok = await other.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
            assert ok.status_code == 200
        assert (await web.get("/api/auth/me")).status_code == 200


async def test_a_session_ends_when_idle_and_at_its_absolute_end(make_server, db):
    async with (
        make_server(**FAST, PARLEY_SESSION_IDLE_DAYS=7, PARLEY_SESSION_DAYS=30) as server,
        browser(server.base_url) as idle,
        browser(server.base_url) as old,
        browser(server.base_url) as busy,
    ):
        await signup(idle, "alice")
        for web in (old, busy):
            r = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
            assert r.status_code == 200
        hashes = {
            name: digest(w.cookies["parley_session"])
            for name, w in (("idle", idle), ("old", old), ("busy", busy))
        }
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE web_sessions SET last_seen_at = now() - interval '7 days 1 minute'"
                " WHERE token_hash = $1",
                hashes["idle"],
            )
            await conn.execute(
                "UPDATE web_sessions SET expires_at = now() - interval '1 second'"
                " WHERE token_hash = $1",
                hashes["old"],
            )
            await conn.execute(  # six days unused, and 29 days old: still fine
                "UPDATE web_sessions SET last_seen_at = now() - interval '6 days',"
                " created_at = now() - interval '29 days' WHERE token_hash = $1",
                hashes["busy"],
            )
        assert (await idle.get("/api/alice/tasks")).status_code == 401
        assert (await old.get("/api/alice/tasks")).status_code == 401
        assert (await busy.get("/api/alice/tasks")).status_code == 200
        listed = (await busy.get("/api/alice/sessions")).json()
        assert len(listed) == 1 and listed[0]["current"]
        async with db.connection() as conn:  # the use just now counts: its idle time restarts
            seen = await conn.fetchval(
                "SELECT last_seen_at > now() - interval '1 minute' FROM web_sessions"
                " WHERE token_hash = $1",
                hashes["busy"],
            )
        assert seen


async def _doors(server: Any, web: httpx.AsyncClient, other_session: int, passkey: int) -> dict:
    """Every request that needs a recent sign-in, as the attacker holding `web` sends it."""
    base = server.base_url
    client = await register(base)
    _, challenge = pkce()
    request = consent_request(await authorize(base, client["client_id"], challenge))
    return {
        "email": web.put("/api/auth/email", json={"email": "attacker@evil.example"}),
        "first password": web.post(
            "/api/auth/password",
            json={"current_password": "", "new_password": "the attacker's own password"},
        ),
        "agent key": web.post("/api/alice/agent-keys", json={"agent": "backdoor"}),
        "passkey": web.post("/api/auth/passkeys/register/options"),
        "remove passkey": web.delete(f"/api/alice/passkeys/{passkey}"),
        "link sso": web.post("/api/auth/oidc/link", json={}),
        "end other session": web.delete(f"/api/alice/sessions/{other_session}"),
        "end other sessions": web.delete("/api/alice/sessions"),
        "connect an app": decide(web, request, agent="backdoor"),
    }


async def _state(db: Any) -> dict[str, Any]:
    async with db.connection() as conn:
        return {
            "account": tuple(
                await conn.fetchrow(
                    "SELECT email, password_hash, oidc_subject FROM accounts"
                    " WHERE user_id = 'alice'"
                )
            ),
            "keys": await conn.fetchval("SELECT count(*) FROM agent_keys"),
            "grants": await conn.fetchval("SELECT count(*) FROM oauth_grants"),
            "passkeys": await conn.fetchval("SELECT count(*) FROM passkeys"),
            "sessions": await conn.fetchval("SELECT count(*) FROM web_sessions"),
        }


async def test_a_session_that_is_not_fresh_cannot_become_lasting_access(make_server, db):
    """Mallory holds Alice's session cookie (a shared screen, a stolen laptop), signed in
    eleven minutes ago. She tries every door at once: each is 403 `reauth_required`, saying
    how Alice could confirm (nothing else), and nothing changes. Signing in again (what
    Mallory cannot do without Alice's password) opens them."""
    async with (
        make_server(**FAST, PARLEY_DEV_LOGIN=False) as server,
        browser(server.base_url) as alice,
        browser(server.base_url) as phone,
    ):
        alice.headers["Origin"] = PASSKEY_ORIGIN
        # alice: signed in with dev sign-in, then made a passkey: she has no password
        async with db.connection() as conn:
            await conn.execute("INSERT INTO accounts (user_id) VALUES ('alice')")
        authenticator = SoftAuthenticator(PASSKEY_ORIGIN)
        await _passkey_sign_in(alice, authenticator, register_first=True)
        passkey = (await alice.get("/api/alice/passkeys")).json()[0]["id"]
        phone.headers["Origin"] = PASSKEY_ORIGIN
        await _passkey_sign_in(phone, authenticator)
        other = next(s for s in (await alice.get("/api/alice/sessions")).json() if not s["current"])
        await _age_sessions(db, "alice", 11)
        before = await _state(db)

        doors = await _doors(server, alice, other["id"], passkey)
        answers = dict(zip(doors, await asyncio.gather(*doors.values()), strict=True))
        for door, answer in answers.items():
            assert answer.status_code == 403, (door, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "reauth_required", (door, error)
            assert error["methods"] == ["passkey"], (door, error)
        assert await _state(db) == before
        assert (await phone.get("/api/auth/me")).status_code == 200

        # Alice confirms with her passkey: a new session, and the doors open to it
        await _passkey_sign_in(alice, authenticator)
        key = await alice.post("/api/alice/agent-keys", json={"agent": "hers"})
        assert key.status_code == 201, key.text
        email = await alice.put("/api/auth/email", json={"email": "alice@example.com"})
        assert email.status_code == 200, email.text
        ended = await alice.delete("/api/alice/sessions")
        assert ended.status_code == 204
        assert (await phone.get("/api/auth/me")).status_code == 401
        assert [s["current"] for s in (await alice.get("/api/alice/sessions")).json()] == [True]


async def _passkey_sign_in(
    web: httpx.AsyncClient,
    authenticator: SoftAuthenticator,
    *,
    register_first: bool = False,
) -> None:
    if register_first:  # added with a fresh `parley token` (its iat is now)
        jwt = token_for("alice")
        options = (
            await web.post("/api/auth/passkeys/register/options", headers=bearer(jwt))
        ).json()
        made = await web.post(
            "/api/auth/passkeys/register/verify",
            json={"credential": authenticator.create(options)},
            headers=bearer(jwt),
        )
        assert made.status_code == 201, made.text
    request = (await web.post("/api/auth/passkeys/login/options")).json()
    signed = await web.post(
        "/api/auth/passkeys/login/verify", json={"credential": authenticator.get(request)}
    )
    assert signed.status_code == 200, signed.text


def _aged(token: str, minutes: float) -> str:
    """The same JWT, as if issued `minutes` ago."""
    claims = pyjwt.decode(token, SECRET, algorithms=["HS256"])
    claims["iat"] -= int(minutes * 60)
    return pyjwt.encode(claims, SECRET, "HS256")


async def test_a_password_confirms_a_password_account_and_a_jwt_is_as_fresh_as_its_iat(
    make_server, db
):
    async with make_server(**FAST) as server, browser(server.base_url) as web:
        await signup(web, "alice")
        await _age_sessions(db, "alice", 11)
        refused = await web.post("/api/alice/agent-keys", json={"agent": "x"})
        assert refused.status_code == 403
        assert refused.json()["error"]["methods"] == ["password", "dev"]
        async with httpx.AsyncClient(base_url=server.base_url) as script:
            aged = _aged(token_for("alice", ttl=7200), 11)
            r = await script.post(
                "/api/alice/agent-keys", json={"agent": "x"}, headers=bearer(aged)
            )
            assert r.status_code == 403 and r.json()["error"]["code"] == "reauth_required"
            fresh = await script.post(
                "/api/alice/agent-keys", json={"agent": "x"}, headers=bearer(token_for("alice"))
            )
            assert fresh.status_code == 201
        # a wrong password confirms nothing
        wrong = await web.post("/api/auth/login", json={"login": "alice", "password": "not hers"})
        assert wrong.status_code == 401
        assert (await web.post("/api/alice/agent-keys", json={"agent": "y"})).status_code == 403
        right = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert right.status_code == 200
        assert (await web.post("/api/alice/agent-keys", json={"agent": "y"})).status_code == 201
        # signing this browser out never needs a fresh sign-in
        await _age_sessions(db, "alice", 11)
        mine = (await web.get("/api/alice/sessions")).json()[0]
        assert (await web.delete(f"/api/alice/sessions/{mine['id']}")).status_code == 204
        assert (await web.get("/api/auth/me")).status_code == 401


async def test_single_sign_on_confirms_only_by_signing_in_afresh_at_the_provider(migrated, db):
    async with parley_with_oidc(
        migrated, PARLEY_SIGNUP="open", PARLEY_CREDENTIAL_CACHE_SECONDS=0, PARLEY_DEV_LOGIN=False
    ) as (base, provider):
        await provider.sign_in_as(
            sub="u-1", email="sam@example.com", email_verified=True, preferred_username="sam"
        )
        async with browser(base) as web:
            first = await sign_in_through(web, base, "/api/auth/oidc/login")
            assert first.headers["location"] == "/"
            await _age_sessions(db, "sam", 11)
            refused = await web.post("/api/sam/agent-keys", json={"agent": "x"})
            assert refused.status_code == 403
            assert refused.json()["error"]["methods"] == ["sso"]

            # the provider is asked to authenticate afresh...
            start = await web.get("/api/auth/oidc/login?reauth=true&next=/account")
            asked = query(start.headers["location"])
            assert asked["prompt"] == "login" and asked["max_age"] == "0"
            # ...and an answer about an authentication from before the request is refused
            # (as if the provider had ignored max_age and reused its own session)
            async with db.connection() as conn:
                await conn.execute(
                    "UPDATE auth_challenges SET data = jsonb_set(data, '{fresh_since}',"
                    " to_jsonb((data->>'fresh_since')::float8 + 3600)) WHERE purpose = 'oidc'"
                )
            stale = await follow(web, start)
            assert stale.headers["location"] == "/?auth_error=oidc_not_fresh"
            assert (await web.post("/api/sam/agent-keys", json={"agent": "x"})).status_code == 403

            fresh = await sign_in_through(web, base, "/api/auth/oidc/login?reauth=true&next=/a")
            assert fresh.headers["location"] == "/a"
            assert (await web.post("/api/sam/agent-keys", json={"agent": "x"})).status_code == 201
            async with db.connection() as conn:
                assert await conn.fetchval("SELECT count(*) FROM web_sessions") == 1


async def test_admins_end_one_persons_sessions_or_everyones(make_server, db, migrated):
    async with (
        make_server(**FAST) as server,
        browser(server.base_url) as admin,
        browser(server.base_url) as bob_laptop,
        browser(server.base_url) as bob_phone,
        browser(server.base_url) as carol,
    ):
        await signup(admin, "root")
        async with db.connection() as conn:
            await conn.execute("UPDATE accounts SET is_admin = true WHERE user_id = 'root'")
        await signup(bob_laptop, "bob")
        await bob_phone.post("/api/auth/login", json={"login": "bob", "password": PASSWORD})
        await signup(carol, "carol")
        assert (await carol.delete("/api/admin/users/bob/sessions")).status_code == 403
        assert (await carol.delete("/api/admin/all-sessions")).status_code == 403
        assert (await admin.delete("/api/admin/users/nobody/sessions")).status_code == 404
        assert (await admin.delete("/api/admin/users/bob/sessions")).status_code == 204
        assert (await bob_laptop.get("/api/auth/me")).status_code == 401
        assert (await bob_phone.get("/api/auth/me")).status_code == 401
        assert (await carol.get("/api/auth/me")).status_code == 200
        # bob is signed out, not disabled
        assert (
            await bob_phone.post("/api/auth/login", json={"login": "bob", "password": PASSWORD})
        ).status_code == 200
        assert (await admin.delete("/api/admin/all-sessions")).status_code == 204
        for web in (bob_phone, carol):
            assert (await web.get("/api/auth/me")).status_code == 401
        assert (await admin.get("/api/auth/me")).status_code == 200  # the admin's own stays
        await carol.post("/api/auth/login", json={"login": "carol", "password": PASSWORD})
        # the operator, from the server: `parley user sign-out`
        out = await parley_user(migrated, "sign-out", "carol")
        assert "carol: every web session ended (1)" in out
        assert (await carol.get("/api/auth/me")).status_code == 401
        out = await parley_user(migrated, "sign-out", "--everyone")
        assert "every web session ended (1)" in out
        assert (await admin.get("/api/auth/me")).status_code == 401


async def test_provider_metadata_naming_another_issuer_is_refused(migrated, db):
    """ASVS 10.5.3: the discovery document at the configured address must name that issuer
    exactly; another spelling of it (the same server, say, as `localhost`) starts no flow."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with oidc_provider(f"{base}/api/auth/oidc/callback") as provider:
        assert "127.0.0.1" in provider.issuer
        for configured, ok in (
            (provider.issuer.replace("127.0.0.1", "localhost"), False),
            (provider.issuer + "/", True),
            (provider.issuer, True),
        ):
            settings = settings_for(
                PARLEY_PUBLIC_URL=base,
                PARLEY_SIGNUP="open",
                PARLEY_OIDC_ISSUER=configured,
                PARLEY_OIDC_CLIENT_ID=CLIENT_ID,
                PARLEY_OIDC_CLIENT_SECRET=CLIENT_SECRET,
                PARLEY_OIDC_REDIRECT_URL=f"{base}/api/auth/oidc/callback",
            )
            async with (
                on_loopback(create_app(settings, database_url=migrated), port),
                browser(base) as web,
            ):
                started = await web.get("/api/auth/oidc/login")
            if ok:
                assert started.status_code == 302, started.text
                assert started.headers["location"].startswith(provider.issuer)
            else:
                assert started.status_code == 502
                assert started.json()["error"]["code"] == "oidc_issuer_mismatch"
                async with db.connection() as conn:
                    assert await conn.fetchval("SELECT count(*) FROM auth_challenges") == 0
