"""Acting as an MCP client going through Parley's OAuth flow, and as the person at the
consent page (with their browser's session cookie)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.accounts.helpers import bearer
from tests.tools.results import INITIALIZE
from tests.tools.test_mcp_http import MCP_HEADERS

REDIRECT = "http://127.0.0.1:9/callback"  # never opened: the test reads the code from it


def pkce() -> tuple[str, str]:
    """A verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.decode().rstrip("=")


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


async def register(base: str, name: str = "Test Agent", **extra: Any) -> dict[str, Any]:
    body = {
        "client_name": name,
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        **extra,
    }
    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.post(f"{base}/register", json=body)
    assert r.status_code == 201, r.text
    registered: dict[str, Any] = r.json()
    return registered


async def authorize(base: str, client_id: str, challenge: str, **params: str) -> httpx.Response:
    """GET /authorize as the client's browser redirect would (not followed)."""
    values = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-" + secrets.token_hex(4),
        "resource": f"{base}/mcp",
        **params,
    }
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.get(f"{base}/authorize", params=values)


def consent_request(response: httpx.Response) -> str:
    """The consent page's request id from the authorize step's redirect."""
    assert response.status_code == 302, response.text
    location = response.headers["location"]
    assert urlsplit(location).path == "/oauth/consent", location
    return query(location)["request"]


async def decide(
    web: httpx.AsyncClient, request: str, *, allow: bool = True, agent: str | None = None, **kw: Any
) -> httpx.Response:
    """The consent page's form, as the browser posts it (the answer is a redirect)."""
    form = {"decision": "allow" if allow else "deny", **({"agent": agent} if agent else {})}
    return await web.post(f"/api/oauth/requests/{request}", data=form, **kw)


@dataclass
class Flow:
    code: str
    state: str
    shown: dict[str, Any]  # what the consent page was told


async def consent(
    web: httpx.AsyncClient,
    request: str,
    *,
    allow: bool = True,
    agent: str | None = None,
    expect_redirect: str | None = REDIRECT,
) -> tuple[dict[str, Any], Any]:
    """The person's consent page: what it shows, and the redirect's query after deciding (the
    whole redirect URL when `expect_redirect` is None)."""
    shown = await web.get(f"/api/oauth/requests/{request}")
    assert shown.status_code == 200, shown.text
    decided = await decide(web, request, allow=allow, agent=agent or shown.json()["agent"])
    assert decided.status_code == 303, decided.text
    assert decided.headers["cache-control"] == "no-store"
    target = decided.headers["location"]
    if expect_redirect is None:
        return shown.json(), target
    assert target.startswith(expect_redirect + "?"), target
    return shown.json(), query(target)


async def code_for(
    base: str, web: httpx.AsyncClient, client_id: str, challenge: str, agent: str | None = None
) -> Flow:
    started = await authorize(base, client_id, challenge, state="s1")
    shown, back = await consent(web, consent_request(started), agent=agent)
    assert back["state"] == "s1" and back["iss"] == base
    return Flow(code=back["code"], state=back["state"], shown=shown)


async def token(base: str, **form: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(f"{base}/token", data=form)


async def exchange(base: str, client_id: str, code: str, verifier: str) -> httpx.Response:
    return await token(
        base,
        grant_type="authorization_code",
        code=code,
        redirect_uri=REDIRECT,
        client_id=client_id,
        code_verifier=verifier,
        resource=f"{base}/mcp",
    )


async def mcp_status(base: str, access: str) -> int:
    """The HTTP status of an MCP initialize with the token: 200 accepted, 401 refused."""
    async with httpx.AsyncClient(timeout=30) as http:
        r = await http.post(
            f"{base}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **bearer(access)}
        )
    assert r.status_code in (200, 401), r.text
    return r.status_code
