"""A connected app's consent and how long it lasts (ASVS 5 V10.4.8, V10.7), over real HTTP
against real PostgreSQL: the consent page says how long access lasts and asks a person whose
sign-in is not recent to confirm before allowing (a stolen session cannot connect an app of
its own); however often an app refreshes, its access ends a fixed time after consent."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from parley.accounts.hashing import digest
from tests.accounts.helpers import PASSWORD, browser, signup
from tests.oauth.helpers import (
    authorize,
    code_for,
    consent_request,
    decide,
    exchange,
    mcp_status,
    pkce,
    query,
    register,
    token,
)

FAST = {"PARLEY_SIGNUP": "open", "PARLEY_CREDENTIAL_CACHE_SECONDS": 0}


async def test_allowing_an_app_needs_a_recent_sign_in_and_the_page_says_how_long_it_lasts(
    make_server, db
):
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(make_server(**FAST, PARLEY_OAUTH_GRANT_DAYS=60))
        web = await stack.enter_async_context(browser(server.base_url))
        await signup(web, "alice")
        base = server.base_url
        client = await register(base)
        _, challenge = pkce()
        request = consent_request(await authorize(base, client["client_id"], challenge))
        shown = (await web.get(f"/api/oauth/requests/{request}")).json()
        assert shown["reauth_required"] is False and shown["reauth_methods"] == []
        assert shown["grant_days"] == 60 and shown["refresh_days"] == 30

        async with db.connection() as conn:  # alice signed in eleven minutes ago
            await conn.execute("UPDATE web_sessions SET created_at = now() - interval '11 min'")
        shown = (await web.get(f"/api/oauth/requests/{request}")).json()
        assert shown["reauth_required"] is True
        assert shown["reauth_methods"] == ["password", "dev"]
        refused = await decide(web, request, agent="backdoor")
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "reauth_required"
        assert "location" not in refused.headers
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM oauth_grants") == 0

        # confirming (signing in again) lets the same request be allowed
        again = await web.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
        assert again.status_code == 200
        allowed = await decide(web, request, agent="helper")
        assert allowed.status_code == 303, allowed.text
        assert "code" in query(allowed.headers["location"])

        # denying never needs it
        async with db.connection() as conn:
            await conn.execute("UPDATE web_sessions SET created_at = now() - interval '11 min'")
        other = consent_request(await authorize(base, client["client_id"], challenge))
        denied = await decide(web, other, allow=False)
        assert denied.status_code == 303
        assert query(denied.headers["location"])["error"] == "access_denied"


async def _grant_age(db: Any, age: str) -> None:
    async with db.connection() as conn:
        await conn.execute(f"UPDATE oauth_grants SET created_at = now() - interval '{age}'")


async def _time_passes(db: Any, interval: str) -> None:
    """Every stored time of the app's consent and tokens moves back by `interval`."""
    async with db.transaction() as conn:
        await conn.execute(
            f"UPDATE oauth_grants SET created_at = created_at - interval '{interval}'"
        )
        await conn.execute(
            f"UPDATE oauth_tokens SET expires_at = expires_at - interval '{interval}'"
        )


async def test_refreshing_never_keeps_an_app_past_its_consents_lifetime(make_server, db):
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(make_server(**FAST, PARLEY_OAUTH_GRANT_DAYS=90))
        web = await stack.enter_async_context(browser(server.base_url))
        await signup(web, "alice")
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        flow = await code_for(base, web, client["client_id"], challenge)
        first = (await exchange(base, client["client_id"], flow.code, verifier)).json()
        assert first["expires_in"] == 3600

        async def refresh(refresh_token: str) -> Any:
            return await token(
                base,
                grant_type="refresh_token",
                refresh_token=refresh_token,
                client_id=client["client_id"],
            )

        # consent given 89 days and 23.5 hours ago: a refresh still works, but what it
        # issues ends with the consent's 90 days (not an hour, nor 30 days, from now)
        await _grant_age(db, "89 days 23 hours 30 minutes")
        r = await refresh(first["refresh_token"])
        assert r.status_code == 200, r.text
        second = r.json()
        assert 1700 <= second["expires_in"] <= 1800
        async with db.connection() as conn:
            # both new tokens, the refresh token too, end with the consent
            within = await conn.fetch(
                "SELECT t.expires_at <= g.created_at + interval '90 days' AS within"
                " FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id"
                " WHERE t.token_hash = ANY($1::bytea[])",
                [digest(second["access_token"]), digest(second["refresh_token"])],
            )
        assert [r["within"] for r in within] == [True, True]
        assert await mcp_status(base, second["access_token"]) == 200

        # past it: the refresh is refused and the last access token is dead too
        await _time_passes(db, "31 minutes")
        late = await refresh(second["refresh_token"])
        assert late.status_code == 400 and late.json()["error"] == "invalid_grant"
        assert await mcp_status(base, second["access_token"]) == 401


async def test_a_code_is_good_for_five_minutes_and_then_gets_no_token(make_server, db):
    """ASVS 10.4.3: a code intercepted and held back (a log, a history, a slow attacker) is
    worthless five minutes after it was issued: its exchange is refused and gets no token."""
    async with AsyncExitStack() as stack:
        server = await stack.enter_async_context(make_server(**FAST))
        web = await stack.enter_async_context(browser(server.base_url))
        await signup(web, "alice")
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        late = await code_for(base, web, client["client_id"], challenge)
        async with db.connection() as conn:  # issued five minutes and a second ago
            moved = await conn.execute(
                "UPDATE auth_challenges SET expires_at = expires_at - interval '301 seconds'"
                " WHERE id = $1 AND purpose = 'oauth_code'",
                digest(late.code).hex(),
            )
        assert moved == "UPDATE 1"
        refused = await exchange(base, client["client_id"], late.code, verifier)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
        assert "access_token" not in refused.json()

        verifier, challenge = pkce()  # one used within its five minutes works
        fresh = await code_for(base, web, client["client_id"], challenge)
        async with db.connection() as conn:  # issued four minutes and fifty seconds ago
            await conn.execute(
                "UPDATE auth_challenges SET expires_at = expires_at - interval '290 seconds'"
                " WHERE id = $1 AND purpose = 'oauth_code'",
                digest(fresh.code).hex(),
            )
        issued = await exchange(base, client["client_id"], fresh.code, verifier)
        assert issued.status_code == 200, issued.text
        assert await mcp_status(base, issued.json()["access_token"]) == 200
