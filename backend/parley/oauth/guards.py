"""What Parley checks on the raw request before the MCP SDK's `/register` and `/authorize`
handlers parse it.

The SDK parses redirect URIs with pydantic's URL type, which normalises them the way a
browser does: it drops tabs and newlines, lowercases the scheme and host, resolves `..`. Checked
after that, `java\\tscript:` would already be `javascript:`, and `HTTPS://App.example/cb` would
match `https://app.example/cb`. So each redirect URI is checked here as the client sent it
(`redirects.check`, which also wants the normal form), and only then handed to the SDK, whose
parsing then changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import Headers, ImmutableMultiDict
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import redirects

MAX_REQUEST_BYTES = 64 * 1024  # client metadata, or an authorization request's form
NO_STORE = {"Cache-Control": "no-store"}


class TooLarge(Exception):
    pass


async def read_body(receive: Receive, *, limit: int) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > limit:
            raise TooLarge
        if not message.get("more_body"):
            return bytes(body)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the already-read body to the handler, then the real channel."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _refusal(error: str, description: str, *, cors: bool = False) -> JSONResponse:
    """The SDK's error shape. `cors`: the answer to a registration, which a browser-based
    client makes cross-origin (the SDK's own answers there allow any origin)."""
    headers = {**NO_STORE, **({"Access-Control-Allow-Origin": "*"} if cors else {})}
    return JSONResponse(
        {"error": error, "error_description": description}, status_code=400, headers=headers
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a member is named twice")
    return dict(pairs)


def registration_refusal(body: bytes) -> JSONResponse | None:
    """RFC 7591 §3.2.2: a bad redirect URI is `invalid_redirect_uri`. A member named twice
    is refused too: the SDK's parser and this one might keep different copies."""
    try:
        metadata = json.loads(body, object_pairs_hook=_unique_keys)
    except ValueError as exc:
        return _refusal(
            "invalid_client_metadata", f"The client metadata is not JSON: {exc}", cors=True
        )
    uris = metadata.get("redirect_uris") if isinstance(metadata, dict) else None
    if not isinstance(uris, list):
        return None  # the SDK says what is missing
    for uri in uris:
        try:
            redirects.check(uri)
        except redirects.BadRedirect as exc:
            return _refusal("invalid_redirect_uri", exc.description, cors=True)
    return None


def authorization_refusal(params: ImmutableMultiDict[str, Any]) -> JSONResponse | None:
    """An authorization request's own redirect URI, as sent (RFC 9700 §4.1.3: compared as a
    string), and each parameter at most once (RFC 6749 §3.1). Refused here, the person sees
    the error: nothing is redirected anywhere."""
    for name in ("client_id", "redirect_uri", "state", "code_challenge", "resource"):
        if len(params.getlist(name)) > 1:
            return _refusal("invalid_request", f"The parameter {name} is given more than once")
    uri = params.get("redirect_uri")
    if uri is None:
        return None
    try:
        redirects.check(uri)
    except redirects.BadRedirect as exc:
        return _refusal("invalid_request", exc.description)
    return None


class CheckedRegistration:
    """The SDK's `/register`, after `registration_refusal` on the body it will parse."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, limit=MAX_REQUEST_BYTES)
        except TooLarge:
            too_large = _refusal(
                "invalid_client_metadata", "The client metadata is too large", cors=True
            )
            await too_large(scope, receive, send)
            return
        refused = registration_refusal(body)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, replaying(body, receive), send)


class CheckedAuthorization:
    """The SDK's `/authorize`, after `authorization_refusal` on the very parameters it will
    read (parsed by the same Starlette code: its query, or its form)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "POST"):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "GET":
            refused = authorization_refusal(Request(scope).query_params)
            await (refused or self.app)(scope, receive, send)
            return
        content_type = Headers(scope=scope).get("content-type", "").split(";")[0].strip()
        if content_type != "application/x-www-form-urlencoded":
            refused = _refusal(
                "invalid_request", "Send the authorization request as a query or a form"
            )
            await refused(scope, receive, send)
            return
        try:
            body = await read_body(receive, limit=MAX_REQUEST_BYTES)
        except TooLarge:
            await _refusal("invalid_request", "The request is too large")(scope, receive, send)
            return
        async with Request(scope, replaying(body, receive)).form() as form:
            refused = authorization_refusal(form)
        await (refused or self.app)(scope, replaying(body, receive), send)
