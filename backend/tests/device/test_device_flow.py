"""The device authorization grant (RFC 8628) over real HTTP and PostgreSQL: a terminal gets a
code, the signed-in person approves it in the web UI, the terminal's poll gets a token for
them, once. And what an attacker would try: guessing codes, redeeming twice, polling fast,
approving with a token or a stale or cross-site session, flooding the endpoint."""

from __future__ import annotations

import asyncio
import re
from contextlib import AsyncExitStack
from typing import Any

from tests.accounts.helpers import PASSWORD, bearer, browser, make_key, signup
from tests.device.helpers import decide, error_of, lookup, poll, start, started
from tests.oauth.helpers import mcp_status

FAST = {"PARLEY_SIGNUP": "open", "PARLEY_CREDENTIAL_CACHE_SECONDS": 0}
CODE = re.compile(r"[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}")


async def _interval_passed(db: Any) -> None:
    """As if every terminal had waited its interval since its last poll."""
    async with db.connection() as conn:
        await conn.execute("UPDATE device_codes SET polled_at = now() - interval '1 minute'")


async def _person(stack: AsyncExitStack, make_server: Any, user: str = "alice", **settings: Any):
    server = await stack.enter_async_context(make_server(**{**FAST, **settings}))
    web = await stack.enter_async_context(browser(server.base_url))
    await signup(web, user)
    return server, web


async def test_a_terminal_is_approved_in_the_web_ui_and_gets_one_token_for_the_person(
    make_server, db
):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        meta = (await server.client.get("/.well-known/oauth-authorization-server")).json()
        assert meta["device_authorization_endpoint"] == f"{base}/oauth/device_authorization"
        assert "urn:ietf:params:oauth:grant-type:device_code" in meta["grant_types_supported"]
        code = await started(base, machine="alice-laptop")
        assert CODE.fullmatch(code["user_code"])
        assert code["verification_uri"] == "http://127.0.0.1:3000/device"
        assert code["verification_uri_complete"] == (
            f"http://127.0.0.1:3000/device?user_code={code['user_code']}"
        )
        assert (code["expires_in"], code["interval"]) == (600, 5)
        # nothing yet: the terminal is told to wait
        assert error_of(await poll(base, code["device_code"])) == "authorization_pending"
        # the person types it as they read it (lower case, no dash) and sees what asks
        typed = code["user_code"].replace("-", "").lower()
        shown = await lookup(web, typed)
        assert shown.status_code == 200, shown.text
        assert shown.json()["application"] == "Claude Code"
        assert shown.json()["machine"] == "alice-laptop"
        assert shown.json()["reauth_required"] is False
        approved = await decide(web, code["user_code"])
        assert approved.status_code == 200, approved.text
        assert approved.json() == {
            "decision": "allow",
            "application": "Claude Code",
            "machine": "alice-laptop",
        }
        # the next poll (after the interval, as the protocol asks) gets the person's token
        await _interval_passed(db)
        r = await poll(base, code["device_code"])
        assert r.status_code == 200, r.text
        assert r.headers["cache-control"] == "no-store"
        token = r.json()
        assert token["token_type"] == "Bearer" and token["expires_in"] == 600
        me = await server.client.get("/api/auth/me", headers=bearer(token["access_token"]))
        assert (me.json()["user_id"], me.json()["agent"]) == ("alice", None)
        # fresh enough to make the terminal's agent key
        key = await server.client.post(
            "/api/alice/agent-keys",
            json={"agent": "claude-code-alice-laptop"},
            headers=bearer(token["access_token"]),
        )
        assert key.status_code == 201, key.text
        # once: the code is used up, and nothing of it shows to anyone any more
        assert error_of(await poll(base, code["device_code"])) == "invalid_grant"
        assert (await lookup(web, code["user_code"])).status_code == 404
        # the digests only are stored
        async with db.connection() as conn:
            row = await conn.fetchrow("SELECT * FROM device_codes")
        stored = repr(dict(row))
        assert code["device_code"] not in stored
        assert code["user_code"].replace("-", "") not in stored
        # the device's own token cannot approve the next device (web UI sessions only)
        other = await started(base, machine="ci")
        refused = await server.client.post(
            "/api/device/decision",
            json={"user_code": other["user_code"], "decision": "allow"},
            headers=bearer(token["access_token"]),
        )
        assert refused.status_code == 403 and refused.json()["error"]["code"] == (
            "session_required"
        )
        as_agent = await server.client.post(
            "/api/device/decision",
            json={"user_code": other["user_code"], "decision": "allow"},
            headers=bearer(key.json()["secret"]),
        )
        assert as_agent.status_code == 403
        assert error_of(await poll(base, other["device_code"])) == "authorization_pending"


async def test_denied_expired_and_fast_polls_are_told_so(make_server, db):
    async with AsyncExitStack() as stack:
        # a long interval: back-to-back polls are too fast however loaded the machine is
        server, web = await _person(stack, make_server, PARLEY_DEVICE_INTERVAL=60)
        base = server.base_url
        denied = await started(base)
        r = await decide(web, denied["user_code"], allow=False)
        assert r.status_code == 200 and r.json()["decision"] == "deny"
        assert error_of(await poll(base, denied["device_code"])) == "access_denied"
        # answered once: approving it afterwards finds nothing
        assert (await decide(web, denied["user_code"])).status_code == 404
        # polling faster than the interval: slow_down, and the interval grows by 5 s each time
        fast = await started(base)
        assert error_of(await poll(base, fast["device_code"])) == "authorization_pending"
        assert error_of(await poll(base, fast["device_code"])) == "slow_down"
        assert error_of(await poll(base, fast["device_code"])) == "slow_down"
        async with db.connection() as conn:
            interval = await conn.fetchval(
                "SELECT interval_seconds FROM device_codes WHERE status = 'pending'"
            )
        assert interval == 70
        # another client id, an unknown code: invalid_grant, nothing learnt
        assert error_of(await poll(base, fast["device_code"], client_id="other")) == (
            "invalid_grant"
        )
        assert error_of(await poll(base, "pd_parley_nope")) == "invalid_grant"
        # expired: the terminal is told, the page finds nothing, approving does nothing
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE device_codes SET expires_at = now() - interval '1 second', polled_at = NULL"
            )
        assert error_of(await poll(base, fast["device_code"])) == "expired_token"
        assert (await lookup(web, fast["user_code"])).status_code == 404
        assert (await decide(web, fast["user_code"])).status_code == 404
        assert error_of(await poll(base, fast["device_code"])) == "expired_token"


async def test_concurrent_polls_of_an_approved_code_redeem_it_once(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        code = await started(base)
        assert (await decide(web, code["user_code"])).status_code == 200
        answers = await asyncio.gather(*(poll(base, code["device_code"]) for _ in range(12)))
        assert sorted(r.status_code for r in answers) == [200] + [400] * 11
        assert {r.json()["error"] for r in answers if r.status_code == 400} == {"invalid_grant"}


async def test_guessing_user_codes_is_throttled_per_person_and_address(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _person(
            stack, make_server, PARLEY_LOGIN_FREE_ATTEMPTS=3, PARLEY_LOGIN_DELAY=60
        )
        base = server.base_url
        code = await started(base)
        # a malformed code is refused before it counts (it could match nothing)
        for bad in ("", "AAAA-AAAA", "BCDF-GHJ", "BCDF GHJK 1", "\uff22CDF-GHJK"):
            r = await lookup(web, bad)
            assert r.status_code == 422, (bad, r.text)
        # a burst of wrong guesses at once: the free ones are looked at, the rest refused
        wrong = "BBBB-BBBB" if code["user_code"] != "BBBB-BBBB" else "CCCC-CCCC"
        answers = await asyncio.gather(*(lookup(web, wrong) for _ in range(10)))
        assert sorted(r.status_code for r in answers) == [404] * 3 + [429] * 7
        # now even the right code waits: guessing cannot go on
        for answer in (await lookup(web, code["user_code"]), await decide(web, code["user_code"])):
            assert answer.status_code == 429, answer.text
            assert answer.json()["error"]["retry_after_seconds"] >= 1
        # the code itself was never answered
        assert error_of(await poll(base, code["device_code"])) == "authorization_pending"
        # and the person's password sign-in counts apart: it still works at once
        async with browser(base) as again:
            r = await again.post("/api/auth/login", json={"login": "alice", "password": PASSWORD})
            assert r.status_code == 200, r.text


async def test_approving_needs_a_fresh_same_origin_session(make_server, db):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        code = await started(base)
        # a cross-site page posting with the person's cookie is refused, and changes nothing
        cross = await web.post(
            "/api/device/decision",
            json={"user_code": code["user_code"], "decision": "allow"},
            headers={"Origin": "https://evil.example"},
        )
        assert cross.status_code == 403 and cross.json()["error"]["code"] == "bad_origin"
        # signed in an hour ago: the page says to confirm; approving is refused, the code waits
        async with db.connection() as conn:
            await conn.execute("UPDATE web_sessions SET created_at = now() - interval '1 hour'")
        shown = await lookup(web, code["user_code"])
        assert shown.json()["reauth_required"] is True
        assert shown.json()["reauth_methods"] == ["password", "dev"]
        refused = await decide(web, code["user_code"])
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "reauth_required"
        assert error_of(await poll(base, code["device_code"])) == "authorization_pending"
        # another person who has the code cannot take it over once it is answered
        async with browser(base) as bob:
            await signup(bob, "bob")
            assert (await lookup(bob, code["user_code"])).status_code == 200
            assert (await decide(bob, code["user_code"], allow=False)).status_code == 200
            assert (await decide(web, code["user_code"], allow=False)).status_code == 404
        await _interval_passed(db)
        assert error_of(await poll(base, code["device_code"])) == "access_denied"


async def test_bad_requests_are_refused_and_store_nothing(make_server, db):
    async with AsyncExitStack() as stack:
        server, _ = await _person(stack, make_server)
        base = server.base_url
        cases = {
            "invalid_client": [{"client_id": "someone-else"}, {"client_id": ""}],
            "invalid_request": [
                {"application": "Parley Security Check"},
                {"machine": "my laptop"},
                {"machine": "-rf"},
                {"machine": "x" * 64},
                {"machine": "<b>pc</b>"},
            ],
        }
        for error, forms in cases.items():
            for form in forms:
                r = await start(base, **form)
                assert (r.status_code, r.json()["error"]) == (400, error), (form, r.text)
        async with __import__("httpx").AsyncClient(timeout=30) as http:
            as_json = await http.post(
                f"{base}/oauth/device_authorization",
                json={"client_id": "parley-cli", "application": "claude-code", "machine": "a"},
            )
            assert as_json.status_code == 400 and as_json.json()["error"] == "invalid_request"
            twice = await http.post(
                f"{base}/oauth/device_authorization",
                content=b"client_id=parley-cli&application=claude-code&machine=a&machine=b",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
            assert twice.status_code == 400 and twice.json()["error"] == "invalid_request"
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM device_codes") == 0
        # one address may keep only so many codes waiting
        answers = await asyncio.gather(*(start(base, machine=f"m{i}") for i in range(14)))
        assert sorted(r.status_code for r in answers) == [200] * 10 + [429] * 4
        assert (await start(base)).status_code == 429
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM device_codes") == 10


async def test_an_agent_key_gives_itself_up_at_revoke(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _person(stack, make_server)
        base = server.base_url
        key = await make_key(web, "alice", agent="claude-code-laptop")
        assert await mcp_status(base, key["secret"]) == 200
        async with __import__("httpx").AsyncClient(timeout=30) as http:
            r = await http.post(f"{base}/revoke", data={"token": key["secret"]})
            assert r.status_code == 200, r.text
            again = await http.post(f"{base}/revoke", data={"token": key["secret"]})
            assert again.status_code == 200
        assert await mcp_status(base, key["secret"]) == 401
        assert (await web.get("/api/alice/agent-keys")).json() == []
