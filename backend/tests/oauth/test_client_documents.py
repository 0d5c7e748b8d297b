"""Clients named by a Client ID Metadata Document: Parley fetches the JSON at the client_id URL
(only from a public address, unless a test setting allows loopback), with a size cap, and
shows the document's name and host on the consent page."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from parley.errors import InvalidInput
from parley.oauth.clients import DOCUMENT_MAX_BYTES, fetch_document
from tests.accounts.helpers import browser, signup
from tests.conftest import free_port, on_loopback
from tests.oauth.helpers import (
    REDIRECT,
    authorize,
    code_for,
    exchange,
    mcp_status,
    pkce,
)


@asynccontextmanager
async def documents() -> AsyncIterator[tuple[str, dict[str, Any], list[str]]]:
    """A loopback web server: `docs[path]` is served as JSON (a str as is); `fetched` lists
    the paths asked for."""
    docs: dict[str, Any] = {}
    fetched: list[str] = []

    async def serve(request: Request) -> Response:
        path = request.url.path
        fetched.append(path)
        if path not in docs:
            return Response(status_code=404)
        body = docs[path] if isinstance(docs[path], str) else json.dumps(docs[path])
        return Response(body, media_type="application/json")

    app = Starlette(routes=[Route("/{path:path}", serve)])
    async with on_loopback(app, free_port()) as base:
        yield base, docs, fetched


async def test_a_metadata_document_client_completes_the_flow(make_server):
    async with AsyncExitStack() as stack:
        host, docs, fetched = await stack.enter_async_context(documents())
        server = await stack.enter_async_context(
            make_server(PARLEY_SIGNUP="open", PARLEY_OAUTH_CIMD_ALLOW_PRIVATE=True)
        )
        web = await stack.enter_async_context(browser(server.base_url))
        await signup(web, "alice")
        client_id = f"{host}/oauth/client.json"
        docs["/oauth/client.json"] = {
            "client_id": client_id,
            "client_name": "Docs Client",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
        }
        verifier, challenge = pkce()
        flow = await code_for(server.base_url, web, client_id, challenge)
        assert flow.shown["client_name"] == "Docs Client"
        assert flow.shown["client_host"] == host.removeprefix("http://")
        assert flow.shown["agent"] == "docs-client"
        r = await exchange(server.base_url, client_id, flow.code, verifier)
        assert r.status_code == 200, r.text
        assert await mcp_status(server.base_url, r.json()["access_token"]) == 200
        # fetched once for the authorize step; the token request used the kept copy
        assert fetched == ["/oauth/client.json"]


async def test_documents_on_private_addresses_and_bad_documents_are_refused(make_server):
    async with AsyncExitStack() as stack:
        host, docs, fetched = await stack.enter_async_context(documents())
        strict = await stack.enter_async_context(make_server())
        _, challenge = pkce()

        def doc(path: str, **overrides: Any) -> str:
            client_id = f"{host}{path}"
            docs[path] = {"client_id": client_id, "redirect_uris": [REDIRECT], **overrides}
            return client_id

        good = doc("/good.json", client_name="Fine")
        # by default (a real server) a loopback or http document is never fetched
        r = await authorize(strict.base_url, good, challenge)
        assert r.status_code == 400 and "not found" in r.json()["error_description"]
        assert fetched == []
        lax = await stack.enter_async_context(make_server(PARLEY_OAUTH_CIMD_ALLOW_PRIVATE=True))
        refused = {
            "names another client": doc("/other.json", client_id="https://elsewhere.example/c"),
            "has a secret method": doc(
                "/secret.json", token_endpoint_auth_method="client_secret_post"
            ),
            "lists no redirects": doc("/bare.json", redirect_uris=[]),
            "is missing": f"{host}/missing.json",
            "has no path": host,
        }
        docs["/huge.json"] = json.dumps(
            {"client_id": f"{host}/huge.json", "pad": "x" * DOCUMENT_MAX_BYTES}
        )
        refused["is too large"] = f"{host}/huge.json"
        docs["/list.json"] = "[]"
        refused["is not an object"] = f"{host}/list.json"
        for why, client_id in refused.items():
            r = await authorize(lax.base_url, client_id, challenge)
            assert r.status_code == 400, why
            assert "not found" in r.json()["error_description"], why
        assert (await authorize(lax.base_url, good, challenge)).status_code == 302


async def test_https_documents_on_loopback_or_private_hosts_are_not_fetched():
    """The address check comes before any connection: a name that resolves to loopback, a
    private network or a link-local address is refused."""
    for url in (
        "https://127.0.0.1/client.json",
        "https://localhost/client.json",
        "https://10.1.2.3/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/client.json",
    ):
        with pytest.raises(InvalidInput, match="not a public address"):
            await fetch_document(url, allow_private=False)
    with pytest.raises(InvalidInput, match="https"):
        await fetch_document("http://example.com/client.json", allow_private=False)
