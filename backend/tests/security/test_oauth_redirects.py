"""A malicious OAuth client's redirect URI: the authorization server sends the person's browser
there, so a `javascript:` or `data:` URI would run the client's script in the web UI's origin
with the person's session (an attacker did so on main, minting an agent key). Registration,
metadata documents, `/authorize`, the consent page's request and its answer each refuse every
shape but https, loopback http and an app's reverse-DNS scheme, as sent (encodings, case,
whitespace), and a client stored before these rules is never redirected to."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from parley.errors import InvalidInput
from parley.oauth import consent
from parley.oauth.clients import from_document
from parley.oauth.redirects import BadRedirect, check, form_target, matches
from tests.accounts.helpers import ORIGIN, browser, signup
from tests.oauth.helpers import authorize, consent_request, decide, pkce, query
from tests.oauth.test_client_documents import documents

WEB = "https://app.example/cb"
LOOPBACK = "http://127.0.0.1/callback"
APP = "com.example.app:/cb"
PAYLOAD = "javascript:fetch('/api/alice/agent-keys',{method:'POST',body:'{}'})//"

# Every redirect URI registration must refuse, by what it tries.
BAD = {
    "script": [
        PAYLOAD,
        "javascript:alert(document.domain)",
        "data:text/html,<script>alert(1)</script>",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "blob:https://app.example/0b5c4b6e-1b7e-4d63-9c6f-3c1f7c0d2a11",
        "about:blank",
        "filesystem:https://app.example/temporary/x",
        "view-source:https://app.example/",
        "jar:https://app.example/x!/",
        "ftp://app.example/cb",
        "ws://127.0.0.1/cb",
        "myapp:/cb",  # a private-use scheme needs reverse-DNS form
        "urn:ietf:wg:oauth:2.0:oob",
    ],
    "case": [
        "JavaScript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "HTTPS://app.example/cb",
        "Https://app.example/cb",
        "https://App.Example/cb",
        "HTTP://127.0.0.1/callback",
        "http://LOCALHOST/callback",
        "Com.Example.App:/cb",
    ],
    "encoding": [
        "javascript%3Aalert(1)",
        "%6Aavascript:alert(1)",
        "java%09script:alert(1)",
        "https%3A//app.example/cb",
        "https://app.example/%zz",
        "https://app.example/a/../cb",
        "https://app.example/%2e%2e/cb",
        "https://app.example/./cb",
        "https://app.example:443/cb",
        "https://app.example",
        "http://127.0.0.1:80/callback",
        "https://bücher.example/cb",
        "https://app.example/c b",
        "https://app.example/<cb>",
    ],
    "whitespace and control characters": [
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "java\rscript:alert(1)",
        "\tjavascript:alert(1)",
        " https://app.example/cb",
        "https://app.example/cb ",
        "https://app.example/cb\n",
        "https://app.exa\tmple/cb",
        "https://app.example/\x00cb",
        "https://app.example/\x0bcb",
        "https://app.example/\x7fcb",
        "https://app.example/\u00a0cb",
        "https://app.example/\u2028cb",
        "javascript\uff1aalert(1)",  # a fullwidth colon
    ],
    "user info": [
        "http://claude.ai@127.0.0.1:8598/cb",
        "https://claude.ai@evil.example/cb",
        "https://user:pass@app.example/cb",
        "https://@app.example/cb",
        "com.example.app://user@host/cb",
    ],
    "fragment": [
        "https://app.example/cb#",
        "https://app.example/cb#x",
        "http://127.0.0.1/callback#/",
        "com.example.app:/cb#x",
    ],
    "backslash and missing host": [
        "https:\\\\evil.example/cb",
        "https://app.example\\@evil.example/cb",
        "https:/app.example/cb",
        "https:app.example/cb",
        "https:///cb",
        "https://:443/cb",
        "https://",
        "com.example.app:cb",
        "//app.example/cb",
        "/cb",
        "",
    ],
    "http that is not loopback": [
        "http://app.example/cb",
        "http://localhost.evil.com/cb",
        "http://127.0.0.1.nip.io/cb",
        "http://127.0.0.2/cb",
        "http://127.1/cb",
        "http://2130706433/cb",
        "http://0x7f000001/cb",
        "http://0177.0.0.1/cb",
        "http://0.0.0.0/cb",
        "http://[0:0:0:0:0:0:0:1]/cb",
        "http://[::ffff:127.0.0.1]/cb",
        "http://[::1%25lo]/cb",
        "http://[::2]/cb",
        "http://[::1/cb",
        "http://[::1]x/cb",
        "http://localhost./cb",
        "http://127.0.0.1:0/cb",
        "http://127.0.0.1:65536/cb",
        "http://127.0.0.1:08080/cb",
    ],
}
BAD_URIS = [uri for uris in BAD.values() for uri in uris]
GOOD = [
    WEB,
    "https://app.example/",
    "https://app.example:8443/oauth/cb?tenant=a&x=1",
    "https://127.0.0.1.nip.io/cb",  # https to any name is the client's own business
    "https://xn--bcher-kva.example/cb",
    LOOPBACK,
    "http://127.0.0.1:53682/callback",
    "http://[::1]/callback",
    "http://localhost/callback",  # what Claude Code's metadata document lists
    "http://localhost:33418/",
    APP,
    "com.googleusercontent.apps.1234-abc:/oauth2redirect",
    "com.example.app://callback/path",
]


def metadata(*uris: Any, **extra: Any) -> dict[str, Any]:
    return {
        "client_name": "Evil",
        "redirect_uris": list(uris),
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        **extra,
    }


async def register_raw(
    base: str, body: bytes, http: httpx.AsyncClient | None = None
) -> httpx.Response:
    async with AsyncExitStack() as stack:
        http = http or await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        return await http.post(
            f"{base}/register", content=body, headers={"content-type": "application/json"}
        )


async def stored_clients(db: Any) -> list[Any]:
    async with db.connection() as conn:
        return [r["info"] for r in await conn.fetch("SELECT info FROM oauth_clients")]


async def test_registration_refuses_every_redirect_uri_but_https_loopback_and_app_schemes(
    server, db
):
    base = server.base_url

    # registered all at once (32 connections): a burst changes nothing either
    burst = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=32))

    async def refused(body: bytes, why: str) -> None:
        r = await register_raw(base, body, burst)
        assert r.status_code == 400, (why, body, r.text)
        answer = r.json()
        assert answer["error"] == "invalid_redirect_uri", (why, body, answer)
        assert "is not allowed" in answer["error_description"], answer
        assert r.headers["access-control-allow-origin"] == "*"  # a browser client reads it

    bodies = []
    for why, uris in BAD.items():
        for uri in uris:
            bodies.append((json.dumps(metadata(uri)).encode(), why))
            # the same, written with JSON escapes (\u0009 is a tab)
            bodies.append((json.dumps(metadata(uri), ensure_ascii=True).encode(), why))
            # beside a good one, it still spoils the registration
            bodies.append((json.dumps(metadata(WEB, uri)).encode(), why))
    bodies.append((b'{"redirect_uris": ["java\\u0009script:alert(1)"]}', "a JSON escape"))
    async with burst:
        await asyncio.gather(*(refused(body, why) for body, why in bodies))
    assert await stored_clients(db) == []

    # a member named twice might be read differently by two parsers: refused
    twice = b'{"redirect_uris": ["javascript:alert(1)"], "redirect_uris": ["%s"]}' % WEB.encode()
    r = await register_raw(base, twice)
    assert r.status_code == 400 and r.json()["error"] == "invalid_client_metadata", r.text
    for body in (b"[]", b"not json", b'{"redirect_uris": "javascript:alert(1)"}'):
        r = await register_raw(base, body)
        assert r.status_code == 400, (body, r.text)
    r = await register_raw(base, json.dumps(metadata(WEB, pad="x" * 70_000)).encode())
    assert r.status_code in (400, 413), r.text
    assert await stored_clients(db) == []


async def test_registration_keeps_good_redirect_uris_exactly_as_sent(server, db):
    r = await register_raw(server.base_url, json.dumps(metadata(*GOOD)).encode())
    assert r.status_code == 201, r.text
    assert r.json()["redirect_uris"] == GOOD
    [info] = await stored_clients(db)
    assert info["redirect_uris"] == GOOD


def test_the_rules_by_themselves():
    for uri in BAD_URIS:
        with pytest.raises(BadRedirect):
            check(uri)
    for uri in (None, 3, ["https://app.example/cb"]):
        with pytest.raises(BadRedirect):
            check(uri)
    assert [check(u) for u in (WEB, LOOPBACK, "http://[::1]:1/x", APP)] == [
        "web",
        "loopback",
        "loopback",
        "native",
    ]
    assert form_target("https://app.example:8443/cb?x=1") == "https://app.example:8443"
    assert form_target("http://127.0.0.1:53682/callback") == "http://127.0.0.1:53682"
    assert form_target(APP) == "com.example.app:"
    # what the consent page and the connected apps show: never user info
    assert consent.client_host("x", "http://claude.ai@127.0.0.1:8598/cb") == "127.0.0.1:8598"
    assert consent.client_host("x", "https://a:b@evil.example/cb") == "evil.example"
    assert consent.client_host("x", APP) == "com.example.app"
    assert consent.client_host("https://claude.ai/meta.json", LOOPBACK) == "claude.ai"
    # a stored bad URI matches nothing, not even itself
    assert not matches(PAYLOAD, PAYLOAD)
    assert not matches("http://claude.ai@127.0.0.1:8598/cb", "http://claude.ai@127.0.0.1/cb")


async def test_a_metadata_document_listing_a_bad_redirect_uri_is_refused(make_server, db):
    async with AsyncExitStack() as stack:
        host, docs, _ = await stack.enter_async_context(documents())
        server = await stack.enter_async_context(make_server(PARLEY_OAUTH_CIMD_ALLOW_PRIVATE=True))
        _, challenge = pkce()
        for n, uris in enumerate(
            [
                [PAYLOAD],
                ["data:text/html,<script>alert(1)</script>"],
                ["http://claude.ai@127.0.0.1:8598/cb"],
                ["java\tscript:alert(1)"],
                [LOOPBACK, "JavaScript:alert(1)"],
                [LOOPBACK, 7],
                "javascript:alert(1)",
            ]
        ):
            client_id = f"{host}/doc{n}.json"
            docs[f"/doc{n}.json"] = {"client_id": client_id, "redirect_uris": uris}
            for redirect in (LOOPBACK, uris[0] if isinstance(uris, list) else uris):
                r = await authorize(server.base_url, client_id, challenge, redirect_uri=redirect)
                assert r.status_code == 400, (uris, r.text)
                assert "location" not in r.headers
            with pytest.raises(InvalidInput):
                from_document(client_id, docs[f"/doc{n}.json"])
        assert await stored_clients(db) == []


async def _store_client(db: Any, client_id: str, *uris: str) -> None:
    """A client as one registered before these rules sits in the database."""
    info = {**metadata(*uris), "client_id": client_id, "response_types": ["code"]}
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO oauth_clients (client_id, source, info) VALUES ($1, 'registered', $2)",
            client_id,
            info,
        )


async def test_a_stored_client_with_a_bad_redirect_uri_is_never_redirected_to(server, db):
    base = server.base_url
    _, challenge = pkce()
    for n, bad in enumerate(
        [PAYLOAD, "data:text/html,<script>alert(1)</script>", "http://claude.ai@127.0.0.1:8598/cb"]
    ):
        client_id = f"old-client-{n}"
        await _store_client(db, client_id, bad)
        sent = {"response_type": "code", "client_id": client_id, "code_challenge": challenge}
        attempts = [
            {**sent, "redirect_uri": bad},
            sent,  # no redirect_uri: the one registered would be the default
            {**sent, "code_challenge": ""},  # an error the SDK would send to the default
            {**sent, "redirect_uri": bad, "code_challenge": ""},
            {**sent, "redirect_uri": bad, "response_type": "token"},
            {**sent, "code_challenge_method": "plain"},
        ]
        async with httpx.AsyncClient(timeout=30) as http:
            for params in attempts:
                r = await http.get(f"{base}/authorize", params=params)
                assert r.status_code == 400, (bad, params, r.text)
                assert "location" not in r.headers
        # as a form too
        async with httpx.AsyncClient(timeout=30) as http:
            form = {"response_type": "code", "client_id": client_id, "code_challenge": challenge}
            r = await http.post(f"{base}/authorize", data={**form, "redirect_uri": bad})
            assert r.status_code == 400 and "location" not in r.headers, r.text
    # beside a bad one, a good URI of the same client still works, and only it
    await _store_client(db, "mixed", PAYLOAD, WEB)
    consent_request(await authorize(base, "mixed", challenge, redirect_uri=WEB))
    r = await authorize(base, "mixed", challenge, redirect_uri=PAYLOAD)
    assert r.status_code == 400 and "location" not in r.headers
    r = await authorize(base, "mixed", challenge, redirect_uri=WEB, code_challenge="")
    assert r.status_code == 302 and r.headers["location"].startswith(WEB + "?error=")
    async with db.connection() as conn:
        pending = await conn.fetchval(
            "SELECT count(*) FROM auth_challenges WHERE data->>'redirect_uri' <> $1", WEB
        )
    assert pending == 0


async def test_authorize_matches_the_redirect_uri_exactly_but_for_a_loopback_port(server):
    base = server.base_url
    r = await register_raw(base, json.dumps(metadata(WEB, LOOPBACK, APP)).encode())
    client_id = r.json()["client_id"]
    _, challenge = pkce()
    hints = {
        WEB: "https://app.example",
        LOOPBACK: "http://127.0.0.1",
        "http://127.0.0.1:53682/callback": "http://127.0.0.1:53682",
        APP: "com.example.app:",
    }
    for uri, hint in hints.items():
        location = urlsplit(
            (await authorize(base, client_id, challenge, redirect_uri=uri)).headers["location"]
        )
        assert location.path == "/oauth/consent"
        assert query(location.geturl())["client"] == hint
    for wrong in [
        "https://app.example/cb/",
        "https://app.example/CB",
        "https://app.example/cb?",
        "https://app.example/cb?x=1",
        "https://app.example/c%62",
        "https://app.example/./cb",
        "https://app.example:443/cb",
        "https://app.example:8443/cb",
        "https://app.example./cb",
        "https://APP.example/cb",
        "HTTPS://app.example/cb",
        "https://app.exa\tmple/cb",
        "https://app.example/cb\n",
        "https://app.example/cb#",
        "https://x@app.example/cb",
        "http://app.example/cb",
        "http://127.0.0.1:53682/callback/",
        "http://127.0.0.1:53682/Callback",
        "http://localhost:53682/callback",  # another loopback name is another URI
        "http://[::1]:53682/callback",
        "http://claude.ai@127.0.0.1:53682/callback",
        "com.example.app:/cb/",
        "com.example.app://cb",
        "Com.example.app:/cb",
        PAYLOAD,
        "",
    ]:
        r = await authorize(base, client_id, challenge, redirect_uri=wrong)
        assert r.status_code == 400, (wrong, r.text)
        assert "location" not in r.headers, wrong
    # a parameter given twice is refused, whichever copy is the good one
    async with httpx.AsyncClient(timeout=30) as http:
        for pair in ([WEB, PAYLOAD], [PAYLOAD, WEB], [WEB, WEB]):
            params = [
                ("response_type", "code"),
                ("client_id", client_id),
                ("code_challenge", challenge),
                *(("redirect_uri", uri) for uri in pair),
            ]
            r = await http.get(f"{base}/authorize", params=params)
            assert r.status_code == 400 and "location" not in r.headers, (pair, r.text)
            assert "more than once" in r.json()["error_description"]
        # a form works like a query; anything but a form is refused
        form = {"response_type": "code", "client_id": client_id, "code_challenge": challenge}
        r = await http.post(f"{base}/authorize", data={**form, "redirect_uri": WEB})
        assert r.status_code == 302 and urlsplit(r.headers["location"]).path == "/oauth/consent"
        r = await http.post(f"{base}/authorize", data={**form, "redirect_uri": PAYLOAD})
        assert r.status_code == 400 and "location" not in r.headers
        r = await http.post(
            f"{base}/authorize", files={"x": b"y"}, data={**form, "redirect_uri": WEB}
        )
        assert r.status_code == 400 and "location" not in r.headers


async def _signed_in(stack: AsyncExitStack, make_server: Any) -> tuple[Any, httpx.AsyncClient]:
    server = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open"))
    web = await stack.enter_async_context(browser(server.base_url))
    await signup(web, "alice")
    return server, web


async def test_the_answer_is_a_303_to_the_client_for_allow_and_deny(make_server, db):
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        base = server.base_url
        r = await register_raw(base, json.dumps(metadata(WEB, LOOPBACK, APP)).encode())
        client_id = r.json()["client_id"]
        _, challenge = pkce()
        for uri, kind, host in (
            (WEB, "web", "app.example"),
            ("http://127.0.0.1:53682/callback", "loopback", "127.0.0.1:53682"),
            (APP, "native", "com.example.app"),
        ):
            for allow in (True, False):
                started = await authorize(base, client_id, challenge, redirect_uri=uri, state="s 1")
                request = consent_request(started)
                shown = (await web.get(f"/api/oauth/requests/{request}")).json()
                assert (shown["redirect_kind"], shown["client_host"]) == (kind, host)
                r = await decide(web, request, allow=allow, agent="helper")
                assert r.status_code == 303, r.text
                assert r.headers["cache-control"] == "no-store"
                location = r.headers["location"]
                assert location.startswith(uri + "?"), location
                got = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
                assert got["state"] == "s 1" and got["iss"] == base
                if allow:
                    assert len(got["code"]) > 20 and "error" not in got
                else:
                    assert got["error"] == "access_denied" and "code" not in got
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM oauth_grants") == 1  # re-allowed
        # the answer needs the web UI's Origin: a cross-site form (or an opaque origin) is 403
        started = await authorize(base, client_id, challenge, redirect_uri=WEB)
        request = consent_request(started)
        for origin in ("https://evil.example", "null", ORIGIN + ".evil.example"):
            r = await decide(web, request, headers={"Origin": origin})
            assert r.status_code == 403 and "location" not in r.headers, origin
        # a JSON body (what the page used to send) is not an answer
        r = await web.post(f"/api/oauth/requests/{request}", json={"allow": True, "agent": "a"})
        assert r.status_code == 422 and "location" not in r.headers
        r = await decide(web, request, allow=True, agent="helper")
        assert r.status_code == 303


async def test_a_pending_request_with_a_bad_redirect_is_neither_shown_nor_answered(make_server, db):
    """A request stored before the rules (or by anything but `/authorize`): the page gets an
    error instead of the question, and an answer posted anyway redirects nowhere."""
    async with AsyncExitStack() as stack:
        server, web = await _signed_in(stack, make_server)
        for bad in (
            PAYLOAD,
            "data:text/html,x",
            "http://claude.ai@127.0.0.1:8598/cb",
            "JavaScript:x",
        ):
            _, challenge = pkce()
            secret = await consent.start(
                db,
                client_id="old-client",
                client_name="Old",
                redirect_uri=bad,
                redirect_uri_explicit=True,
                code_challenge=challenge,
                state="s",
                scopes=[],
                resource=f"{server.base_url}/mcp",
            )
            r = await web.get(f"/api/oauth/requests/{secret}")
            assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_redirect_uri"
            for allow in (True, False):
                r = await decide(web, secret, allow=allow, agent="helper")
                assert r.status_code == 400, r.text
                assert r.json()["error"]["code"] == "invalid_redirect_uri"
                assert "location" not in r.headers
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM oauth_grants") == 0
            assert await conn.fetchval("SELECT count(*) FROM agent_keys") == 0
