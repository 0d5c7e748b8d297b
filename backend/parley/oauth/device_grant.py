"""RFC 8628 on the wire: the device authorization endpoint, the device-code grant at `/token`
(the SDK's handler answers every other grant), and `/revoke` taking an agent key too, so
`parley disconnect` can end the key it holds without signing in again (RFC 7009: holding a
credential is enough to give it up).

Requests are forms (`application/x-www-form-urlencoded`); a parameter given twice is refused
(RFC 6749 §3.1), as is a body over MAX_FORM_BYTES. Answers are JSON with `Cache-Control:
no-store`: a code or a token is never cached.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from parley.accounts import keys
from parley.config import Settings
from parley.db import Database
from parley.device import flow

from .guards import NO_STORE, TooLarge, read_body, replaying

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
PATH = "/oauth/device_authorization"
MAX_FORM_BYTES = 16 * 1024
FORM = "application/x-www-form-urlencoded"


class BadForm(Exception):
    pass


def _error(error: str, description: str, status: int = 400) -> JSONResponse:
    body = {"error": error, "error_description": description}
    return JSONResponse(body, status_code=status, headers=NO_STORE)


def parse_form(body: bytes, content_type: str | None) -> dict[str, str]:
    if (content_type or "").split(";")[0].strip().lower() != FORM:
        raise BadForm(f"Send a form ({FORM})")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadForm("The form is not valid UTF-8") from exc
    form = dict(pairs)
    if len(form) != len(pairs):
        raise BadForm("A parameter is given more than once")
    return form


async def _body(receive: Receive) -> bytes | None:
    """The request's body; None when it is larger than a form of these endpoints can be."""
    try:
        return await read_body(receive, limit=MAX_FORM_BYTES)
    except TooLarge:
        return None


def _too_large() -> JSONResponse:
    return _error("invalid_request", "The form is too large", 413)


def _form_of(scope: Scope, body: bytes) -> dict[str, str] | None:
    """The form, or None when it is not one (the SDK's handler answers such a request)."""
    try:
        return parse_form(body, Request(scope).headers.get("content-type"))
    except BadForm:
        return None


class DeviceAuthorization:
    """`POST /oauth/device_authorization` (RFC 8628 §3.1-3.2): `client_id` (parley-cli),
    `application` (claude-code) and `machine` (its host name) give a device code, a user
    code and where the person enters it."""

    def __init__(self, db: Database, settings: Settings, address: Callable[[Request], str]) -> None:
        self.db = db
        self.settings = settings
        self.address = address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await _error("invalid_request", "POST a form", 405)(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:
            await _too_large()(scope, receive, send)
            return
        try:
            form = parse_form(body, Request(scope).headers.get("content-type"))
        except BadForm as exc:
            await _error("invalid_request", str(exc))(scope, receive, send)
            return
        try:
            started = await flow.start(
                self.db,
                settings=self.settings,
                client_id=form.get("client_id", ""),
                application=form.get("application", ""),
                machine=form.get("machine", ""),
                address=self.address(Request(scope)),
            )
        except flow.DeviceError as exc:
            await _error(exc.code, exc.message, exc.status)(scope, receive, send)
            return
        page = self.settings.web_origin + "/device"
        answer = {
            "device_code": started.device_code,
            "user_code": started.user_code,
            "verification_uri": page,
            "verification_uri_complete": f"{page}?user_code={started.user_code}",
            "expires_in": started.expires_in,
            "interval": started.interval,
        }
        await JSONResponse(answer, headers=NO_STORE)(scope, receive, send)


async def _posted_form(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> tuple[dict[str, str] | None, bytes] | None:
    """A POST's form (None if it is not one) and its body, to answer it here or replay it to
    the SDK's handler; None when the request is already dealt with: not a POST (handed on
    as it is) or too large (refused)."""
    if scope["type"] != "http" or scope["method"] != "POST":
        await app(scope, receive, send)
        return None
    body = await _body(receive)
    if body is None:
        await _too_large()(scope, receive, send)
        return None
    return _form_of(scope, body), body


class DeviceToken:
    """`/token`: the device-code grant here (RFC 8628 §3.4-3.5), any other to the SDK's
    handler with the body it was sent."""

    def __init__(self, app: ASGIApp, db: Database, settings: Settings) -> None:
        self.app = app
        self.db = db
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        posted = await _posted_form(self.app, scope, receive, send)
        if posted is None:
            return
        form, body = posted
        if form is None or form.get("grant_type") != GRANT_TYPE:
            await self.app(scope, replaying(body, receive), send)
            return
        try:
            token = await flow.poll(
                self.db,
                settings=self.settings,
                device_code=form.get("device_code", ""),
                client_id=form.get("client_id", ""),
            )
        except flow.DeviceError as exc:
            await _error(exc.code, exc.message, exc.status)(scope, receive, send)
            return
        answer = {
            "access_token": token.access_token,
            "token_type": "Bearer",
            "expires_in": token.expires_in,
        }
        await JSONResponse(answer, headers=NO_STORE)(scope, receive, send)


class KeyRevocation:
    """`/revoke` with an agent key (`token=pk_parley_…`): the key is deleted (its holder
    needs nothing else), and this instance forgets it at once. RFC 7009 §2.2: 200 whether
    or not the key existed. Any other token goes to the SDK's handler."""

    def __init__(self, app: ASGIApp, db: Database, forget: Callable[[], None]) -> None:
        self.app = app
        self.db = db
        self.forget = forget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        posted = await _posted_form(self.app, scope, receive, send)
        if posted is None:
            return
        form, body = posted
        token = "" if form is None else form.get("token", "")
        if not keys.is_key(token):
            await self.app(scope, replaying(body, receive), send)
            return
        await keys.revoke_secret(self.db, secret=token)
        self.forget()
        await JSONResponse({}, headers=NO_STORE)(scope, receive, send)
