"""Sign-in with an OpenID provider: a real one (npm `oidc-provider`) run locally, real signed
ID tokens, the whole redirect dance over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from parley.api.app import create_app
from tests.accounts.conftest import CLIENT_ID, CLIENT_SECRET, OidcProvider, oidc_provider
from tests.accounts.helpers import browser
from tests.conftest import free_port, on_loopback, settings_for


@asynccontextmanager
async def parley_with_oidc(
    migrated: str, **overrides: Any
) -> AsyncIterator[tuple[str, OidcProvider]]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with oidc_provider(f"{base}/api/auth/oidc/callback") as provider:
        settings = settings_for(
            PARLEY_PUBLIC_URL=base,
            PARLEY_OIDC_ISSUER=provider.issuer,
            PARLEY_OIDC_CLIENT_ID=CLIENT_ID,
            PARLEY_OIDC_CLIENT_SECRET=CLIENT_SECRET,
            PARLEY_OIDC_NAME="Test IdP",
            PARLEY_OIDC_REDIRECT_URL=f"{base}/api/auth/oidc/callback",
            **overrides,
        )
        async with on_loopback(create_app(settings, database_url=migrated), port):
            yield base, provider


async def sign_in_through(client: httpx.AsyncClient, base: str, start: str) -> httpx.Response:
    """Follows the redirects a browser would, from Parley's login route to Parley's final
    answer (the redirect back to the web app)."""
    response = await client.get(f"{base}{start}")
    for _ in range(10):
        assert response.status_code in (302, 303), response.text
        location = response.headers["location"]
        if location.startswith("/") and response.url.path == "/api/auth/oidc/callback":
            return response
        target = (
            location
            if "://" in location
            else f"{response.url.scheme}://{response.url.netloc.decode()}{location}"
        )
        response = await client.get(target)
    raise AssertionError("too many redirects")


async def test_first_sign_in_creates_the_account_and_the_next_one_finds_it(migrated, db):
    async with parley_with_oidc(migrated, PARLEY_SIGNUP="open") as (base, provider):
        async with browser(base) as web:
            config = (await web.get("/api/auth/config")).json()
            assert config["oidc"] is True and config["oidc_name"] == "Test IdP"
            start = await web.get("/api/auth/oidc/login", params={"next": "/c/7"})
            assert start.status_code == 302
            query = parse_qs(urlsplit(start.headers["location"]).query)
            assert query["code_challenge_method"] == ["S256"] and query["code_challenge"]
            assert query["state"] and query["nonce"] and query["client_id"] == [CLIENT_ID]
            assert query["redirect_uri"] == [f"{base}/api/auth/oidc/callback"]

        await provider.sign_in_as(
            sub="u-1",
            email="Sso.Person@example.com",
            email_verified=True,
            preferred_username="sso person!",
        )
        async with browser(base) as web:
            done = await sign_in_through(web, base, "/api/auth/oidc/login?next=/c/7")
            assert done.headers["location"] == "/c/7"
            me = (await web.get("/api/auth/me")).json()
            assert me["user_id"] == "sso-person" and me["email"] == "sso.person@example.com"
        async with browser(base) as again:  # the same person, another day: the same account
            done = await sign_in_through(again, base, "/api/auth/oidc/login?next=//evil.example")
            assert done.headers["location"] == "/"  # only paths on this site
            assert (await again.get("/api/auth/me")).json()["user_id"] == "sso-person"
        async with db.connection() as conn:
            rows = await conn.fetch("SELECT user_id, oidc_subject FROM accounts")
        assert [(r["user_id"], r["oidc_subject"]) for r in rows] == [
            ("sso-person", f"{provider.issuer}#u-1")
        ]


async def test_a_verified_email_links_an_existing_account_and_unknown_people_need_an_invite(
    migrated, db
):
    async with parley_with_oidc(migrated) as (base, provider):  # sign-up by invite
        async with db.connection() as conn:
            await conn.execute(
                "INSERT INTO accounts (user_id, email, email_verified_at)"
                " VALUES ('alice', 'alice@example.com', now())"
            )
        await provider.sign_in_as(sub="a-9", email="alice@example.com", email_verified=True)
        async with browser(base) as web:
            await sign_in_through(web, base, "/api/auth/oidc/login")
            assert (await web.get("/api/auth/me")).json()["user_id"] == "alice"
        # an unverified email links nothing, and without an invite nobody new gets in
        await provider.sign_in_as(sub="b-1", email="bob@example.com", email_verified=False)
        async with browser(base) as web:
            done = await sign_in_through(web, base, "/api/auth/oidc/login")
            assert done.headers["location"] == "/?auth_error=oidc_no_account"
            assert (await web.get("/api/auth/me")).status_code == 401
        # a callback opened in another browser than the one that started it signs nobody
        # in (and does not use the flow up); a callback replayed signs nobody in either
        await provider.sign_in_as(sub="a-9", email="alice@example.com", email_verified=True)
        async with browser(base) as web, browser(base) as attacker:
            start = await web.get("/api/auth/oidc/login")
            async with httpx.AsyncClient() as at_the_provider:
                r = await at_the_provider.get(start.headers["location"])
                while "/api/auth/oidc/callback" not in r.headers["location"]:
                    location = r.headers["location"]
                    if "://" not in location:
                        location = provider.issuer + location
                    r = await at_the_provider.get(location)
                callback = r.headers["location"]
            hijack = await attacker.get(callback)
            assert hijack.headers["location"] == "/?auth_error=oidc_failed"
            assert (await attacker.get("/api/auth/me")).status_code == 401
            own = await web.get(callback)
            assert own.headers["location"] == "/"
            assert (await web.get("/api/auth/me")).json()["user_id"] == "alice"
            web.cookies.clear()
            replay = await web.get(callback)
            assert replay.headers["location"] == "/?auth_error=oidc_failed"


async def test_an_invite_carried_through_the_provider_makes_the_account(migrated, db):
    async with parley_with_oidc(migrated, PARLEY_SIGNUP="closed") as (base, provider):
        async with browser(base) as admin:
            async with db.connection() as conn:
                await conn.execute("INSERT INTO accounts (user_id, is_admin) VALUES ('root', true)")
            await admin.post("/api/auth/dev-login", json={"user_id": "root"})
            invite = await admin.post("/api/admin/invites", json={"user_id": "carol"})
            token = invite.json()["url"].rsplit("/", 1)[1]
        await provider.sign_in_as(sub="c-3", email="carol@corp.example", email_verified=True)
        async with browser(base) as web:
            done = await sign_in_through(web, base, f"/api/auth/oidc/login?invite={token}")
            assert done.headers["location"] == "/"
            assert (await web.get("/api/auth/me")).json()["user_id"] == "carol"
        async with browser(base) as web:  # the invite is used up; the link stays
            done = await sign_in_through(web, base, f"/api/auth/oidc/login?invite={token}")
            assert (await web.get("/api/auth/me")).json()["user_id"] == "carol"
