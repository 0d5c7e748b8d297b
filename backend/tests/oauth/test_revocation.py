"""Revoking a connected app (from the person's account, or by the client at `/revoke`) refuses
its next `/mcp` call on both of two instances within a second."""

from __future__ import annotations

from contextlib import AsyncExitStack

import httpx

from tests.accounts.helpers import browser, signup
from tests.accounts.test_revocation import Check, refused_within
from tests.oauth.helpers import code_for, exchange, mcp_status, pkce, register


def mcp_refused(base: str, access: str) -> Check:
    async def check() -> bool:
        return await mcp_status(base, access) == 401

    return check


async def _connected(stack: AsyncExitStack, make_server):
    """Two instances behind one address (one public URL), alice, and one connected app."""
    a = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open"))
    b = await stack.enter_async_context(make_server(PARLEY_PUBLIC_URL=a.base_url))
    web = await stack.enter_async_context(browser(a.base_url))
    await signup(web, "alice")
    client = await register(a.base_url, name="Claude Code")
    verifier, challenge = pkce()
    flow = await code_for(a.base_url, web, client["client_id"], challenge, agent="laptop")
    tokens = (await exchange(a.base_url, client["client_id"], flow.code, verifier)).json()
    return a, b, web, client, tokens


async def test_revoking_a_connected_app_refuses_it_on_both_instances_within_a_second(
    make_server,
):
    async with AsyncExitStack() as stack:
        a, b, web, _, tokens = await _connected(stack, make_server)
        # another app of alice's is untouched by the revocation
        other_client = await register(a.base_url, name="Other")
        verifier, challenge = pkce()
        flow = await code_for(a.base_url, web, other_client["client_id"], challenge)
        other = (await exchange(a.base_url, other_client["client_id"], flow.code, verifier)).json()
        access = tokens["access_token"]
        checks = {
            "A /mcp": mcp_refused(a.base_url, access),
            "B /mcp": mcp_refused(b.base_url, access),
        }
        apps = (await web.get("/api/alice/connected-apps")).json()
        app_id = next(app["id"] for app in apps if app["agent"] == "laptop")

        async def revoke() -> None:
            r = await web.delete(f"/api/alice/connected-apps/{app_id}")
            assert r.status_code == 204

        await refused_within(checks, revoke)
        assert await mcp_status(b.base_url, other["access_token"]) == 200
        assert [
            app["client_name"] for app in (await web.get("/api/alice/connected-apps")).json()
        ] == ["Other"]
        # its refresh token is dead too
        async with httpx.AsyncClient(timeout=30) as http:
            r = await http.post(
                f"{b.base_url}/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": tokens["refresh_token"],
                    "client_id": apps[0]["client_id"],
                },
            )
        assert r.status_code == 400


async def test_the_client_revoking_its_token_refuses_it_on_both_instances(make_server):
    async with AsyncExitStack() as stack:
        a, b, web, client, tokens = await _connected(stack, make_server)
        access = tokens["access_token"]
        checks = {
            "A /mcp": mcp_refused(a.base_url, access),
            "B /mcp": mcp_refused(b.base_url, access),
        }

        async def revoke() -> None:  # RFC 7009, by the client itself, at the other instance
            async with httpx.AsyncClient(timeout=30) as http:
                r = await http.post(
                    f"{b.base_url}/revoke",
                    data={"token": tokens["refresh_token"], "client_id": client["client_id"]},
                )
            assert r.status_code == 200

        await refused_within(checks, revoke)
        assert (await web.get("/api/alice/connected-apps")).json() == []


async def test_nobody_lists_or_revokes_another_persons_connected_apps(make_server):
    async with AsyncExitStack() as stack:
        a, _, web, _, tokens = await _connected(stack, make_server)
        app_id = (await web.get("/api/alice/connected-apps")).json()[0]["id"]
        async with browser(a.base_url) as bob:
            await signup(bob, "bob")
            assert (await bob.get("/api/alice/connected-apps")).status_code == 403
            assert (await bob.delete(f"/api/bob/connected-apps/{app_id}")).status_code == 404
        # the app's own token is an agent's: it cannot manage credentials, even its own
        agent = {"Authorization": f"Bearer {tokens['access_token']}"}
        assert (await web.get("/api/alice/connected-apps", headers=agent)).status_code == 401
        assert await mcp_status(a.base_url, tokens["access_token"]) == 200
