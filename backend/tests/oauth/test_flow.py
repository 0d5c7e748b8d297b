"""Parley as the OAuth 2.1 authorization server of `/mcp`: metadata that validates, a
registered client through code + PKCE to a working `/mcp` call as the agent the person named,
and every way a stolen or misused credential is refused."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

import httpx
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

from tests.accounts.helpers import bearer, browser, signup
from tests.conftest import eventually, token_for
from tests.oauth.helpers import (
    REDIRECT,
    authorize,
    code_for,
    consent,
    consent_request,
    decide,
    exchange,
    mcp_status,
    pkce,
    query,
    register,
    token,
)
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client


async def _signed_in(stack: AsyncExitStack, make_server: Any, **settings: Any):
    server = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open", **settings))
    web = await stack.enter_async_context(browser(server.base_url))
    await signup(web, "alice")
    return server, web


async def test_metadata_documents_validate_and_point_at_each_other(server):
    base = server.base_url
    prm = (await server.client.get("/.well-known/oauth-protected-resource/mcp")).json()
    resource = ProtectedResourceMetadata.model_validate(prm)  # RFC 9728's required fields
    assert str(resource.resource) == f"{base}/mcp"
    assert prm["authorization_servers"] == [base]
    assert [str(a) for a in resource.authorization_servers] == [base]
    r = await server.client.get("/.well-known/oauth-authorization-server")
    assert r.status_code == 200
    raw = r.json()
    meta = OAuthMetadata.model_validate(raw)  # RFC 8414's required fields
    assert raw["issuer"] == base and str(meta.issuer) == base  # exactly, as clients compare it
    for field in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
        assert raw[field].startswith(base + "/"), field
    assert raw["revocation_endpoint"] == f"{base}/revoke"
    assert raw["response_types_supported"] == ["code"]
    assert raw["code_challenge_methods_supported"] == ["S256"]
    assert set(raw["grant_types_supported"]) == {
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code",
    }
    assert raw["device_authorization_endpoint"] == f"{base}/oauth/device_authorization"
    assert "none" in raw["token_endpoint_auth_methods_supported"]
    assert raw["client_id_metadata_document_supported"] is True
    # a client with no token is told where to start
    r = await server.client.post("/mcp", json={})
    assert r.status_code == 401
    assert "/.well-known/oauth-protected-resource/mcp" in r.headers["www-authenticate"]


async def test_a_registered_client_completes_code_and_pkce_and_acts_as_the_named_agent(
    make_server,
):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        client = await register(base, name="Claude Code")
        verifier, challenge = pkce()
        flow = await code_for(base, web, client["client_id"], challenge, agent="claude-laptop")
        # the consent page names the client, where it is from, and the agent it suggests
        assert flow.shown["client_name"] == "Claude Code"
        assert flow.shown["client_host"] == "127.0.0.1:9"
        assert flow.shown["agent"] == "claude-code"
        assert flow.shown["resource"] == f"{base}/mcp"
        r = await exchange(base, client["client_id"], flow.code, verifier)
        assert r.status_code == 200, r.text
        tokens = r.json()
        assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
        assert tokens["access_token"].startswith("po_parley_")
        assert tokens["refresh_token"].startswith("pr_parley_")
        # its writes carry the agent the person chose, never the person
        async with mcp_client(base, tokens["access_token"]) as mcp:
            posted = data(await mcp.call_tool("post_message", {"text": "connected"}))
        assert (posted["role"], posted["author"]) == ("agent", "claude-laptop")
        # the token is for /mcp only: the REST API refuses it
        r = await server.client.get("/api/alice/tasks", headers=bearer(tokens["access_token"]))
        assert r.status_code == 401 and "/mcp only" in r.json()["error"]["message"]
        # and the person sees the connected app beside their agent keys
        apps = (await web.get("/api/alice/connected-apps")).json()
        assert [(a["client_name"], a["agent"]) for a in apps] == [("Claude Code", "claude-laptop")]


async def test_a_wrong_verifier_plain_pkce_and_a_denial_get_no_token(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        flow = await code_for(base, web, client["client_id"], challenge)
        wrong, _ = pkce()
        r = await exchange(base, client["client_id"], flow.code, wrong)
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
        # PKCE plain is refused at the authorize step (back to the client, no consent page)
        r = await authorize(base, client["client_id"], verifier, code_challenge_method="plain")
        assert r.status_code == 302
        assert query(r.headers["location"])["error"] == "invalid_request"
        assert r.headers["location"].startswith(REDIRECT)
        # no challenge at all is refused too
        r = await authorize(base, client["client_id"], "")
        assert query(r.headers["location"])["error"] == "invalid_request"
        # a person who denies sends the client back with access_denied and nothing is made
        started = await authorize(base, client["client_id"], challenge)
        _, back = await consent(web, consent_request(started), allow=False)
        assert back["error"] == "access_denied" and "code" not in back
        # the right verifier still works for the first code (a wrong guess did not burn it)
        assert (await exchange(base, client["client_id"], flow.code, verifier)).status_code == 200
        assert len((await web.get("/api/alice/connected-apps")).json()) == 1


async def test_a_reused_code_is_refused_and_revokes_what_it_issued(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        flow = await code_for(base, web, client["client_id"], challenge)
        first = await exchange(base, client["client_id"], flow.code, verifier)
        assert first.status_code == 200
        access = first.json()["access_token"]
        assert await mcp_status(base, access) == 200
        again = await exchange(base, client["client_id"], flow.code, verifier)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        assert await mcp_status(base, access) == 401
        refresh = first.json()["refresh_token"]
        r = await token(
            base, grant_type="refresh_token", refresh_token=refresh, client_id=client["client_id"]
        )
        assert r.status_code == 400
        assert (await web.get("/api/alice/connected-apps")).json() == []


async def test_refresh_rotates_and_a_replayed_refresh_token_revokes_the_app(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        flow = await code_for(base, web, client["client_id"], challenge)
        first = (await exchange(base, client["client_id"], flow.code, verifier)).json()

        async def refresh(with_token: str) -> httpx.Response:
            return await token(
                base,
                grant_type="refresh_token",
                refresh_token=with_token,
                client_id=client["client_id"],
            )

        r = await refresh(first["refresh_token"])
        assert r.status_code == 200, r.text
        second = r.json()
        assert second["refresh_token"] != first["refresh_token"]
        assert second["access_token"] != first["access_token"]
        assert await mcp_status(base, second["access_token"]) == 200
        # the used refresh token presented again: a thief or a bug; the app is revoked
        r = await refresh(first["refresh_token"])
        assert r.status_code == 400 and r.json()["error"] == "invalid_grant"
        assert await mcp_status(base, second["access_token"]) == 401
        assert (await refresh(second["refresh_token"])).status_code == 400


async def test_tokens_for_another_resource_and_expired_tokens_are_refused(make_server, db):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        client = await register(base)
        verifier, challenge = pkce()
        # asking for a token for anything but this server's /mcp: invalid_target
        r = await authorize(base, client["client_id"], challenge, resource=f"{base}/api")
        assert query(r.headers["location"])["error"] == "invalid_target"
        flow = await code_for(base, web, client["client_id"], challenge)
        access = (await exchange(base, client["client_id"], flow.code, verifier)).json()[
            "access_token"
        ]
        assert await mcp_status(base, access) == 200
        # another Parley (its own address, so its own /mcp) over the same database refuses it
        other = await stack.enter_async_context(make_server())
        assert await mcp_status(other.base_url, access) == 401
        # an expired access token is refused
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE oauth_tokens SET expires_at = now() - interval '1 second'"
                " WHERE kind = 'access'"
            )

        async def refused() -> bool:
            return await mcp_status(base, access) == 401

        await eventually(refused, within=5)


async def test_the_authorize_step_refuses_unknown_clients_and_unregistered_redirects(server):
    _, challenge = pkce()
    r = await authorize(server.base_url, "no-such-client", challenge)
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    client = await register(server.base_url)
    r = await authorize(
        server.base_url, client["client_id"], challenge, redirect_uri="https://evil.example/cb"
    )
    assert r.status_code == 400 and "not registered" in r.json()["error_description"]


async def test_consent_needs_the_person_signed_in_from_the_web_origin(make_server):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        client = await register(server.base_url)
        _, challenge = pkce()
        request = consent_request(await authorize(server.base_url, client["client_id"], challenge))
        async with httpx.AsyncClient(base_url=server.base_url) as stranger:
            assert (await stranger.get(f"/api/oauth/requests/{request}")).status_code == 401
        # a cross-site form posting the person's cookie is refused, and changes nothing
        cookies = {"parley_session": web.cookies["parley_session"]}
        async with httpx.AsyncClient(
            base_url=server.base_url, cookies=cookies, headers={"Origin": "https://evil.example"}
        ) as forged:
            r = await decide(forged, request, agent="x")
            assert r.status_code == 403
        # a person without an account (a `parley token` script) connects nothing
        carol = bearer(token_for("carol"))
        r = await decide(server.client, request, agent="x", headers=carol)
        assert r.status_code == 403 and r.json()["error"]["code"] == "account_required"
        # a bad agent name is a clear 422, and the request is still there to answer
        r = await decide(web, request, agent="a b")
        assert r.status_code == 422
        _, back = await consent(web, request)
        assert "code" in back
        # and it is answered once
        r = await decide(web, request, agent="x")
        assert r.status_code == 404
        assert (await web.get("/api/oauth/requests/nope")).status_code == 404


async def test_a_loopback_redirect_matches_on_any_port_and_nothing_else_does(server):
    """RFC 8252: a native client registers `http://127.0.0.1/callback` and listens on whatever
    port is free; only the port may differ, and only on a loopback http address."""
    base = server.base_url
    client = await register(
        base, redirect_uris=["http://127.0.0.1/callback", "https://app.example/cb"]
    )
    _, challenge = pkce()
    ok = await authorize(
        base, client["client_id"], challenge, redirect_uri="http://127.0.0.1:53682/callback"
    )
    consent_request(ok)
    for wrong in (
        "http://127.0.0.1:53682/other",
        "http://127.0.0.2:53682/callback",
        "https://app.example:8443/cb",
        "http://app.example/cb",
    ):
        r = await authorize(base, client["client_id"], challenge, redirect_uri=wrong)
        assert r.status_code == 400, wrong
