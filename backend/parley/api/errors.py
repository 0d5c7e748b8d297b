"""The one place errors become HTTP: ParleyError, validation failures, and the unexpected."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from parley.errors import ParleyError
from parley.schemas import ErrorResponse

log = logging.getLogger(__name__)

_DESCRIPTIONS = {
    400: "Bad request",
    401: "Missing, invalid or expired bearer token",
    403: "The path's user is not the token's user",
    404: "Not found (or not yours)",
    409: "Conflicts with the current state (a turn in progress, a finished run)",
    413: "Message too long",
    422: "Invalid input",
    429: "Too many requests",
    502: "The model or a tool failed; the error is stored in the conversation",
    503: "The database connection was lost (a restart, say); try again",
}


def ERRORS(*statuses: int) -> dict[int | str, dict[str, Any]]:  # reads like a constant
    """OpenAPI `responses=` entries for the error statuses a route can return."""
    return {s: {"model": ErrorResponse, "description": _DESCRIPTIONS[s]} for s in statuses}


# Every route behind a token can also lose its database connection mid-request.
AUTHED = (401, 403, 404, 422, 503)


# What FastAPI says when json.loads raised something other than a JSONDecodeError.
_UNPARSEABLE = "There was an error parsing the body"

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    413: "body_too_large",
    415: "unsupported_media_type",
    421: "misdirected_request",
    422: "validation_error",
    429: "rate_limited",
    503: "unavailable",
}


def status_code_and_text(status: int, detail: object) -> tuple[str, str]:
    """The `code` and `message` of an error Parley did not raise itself (the framework's,
    the MCP SDK's): a code by status, the framework's words as the message."""
    code = _CODES.get(status, "http_error" if status < 500 else "internal_error")
    text = str(detail).strip() if detail else ""
    return code, text or HTTPStatus(status).phrase


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at this path. Starlette's own `Allow` names only the
    first route matching the path, and GET and POST of one path are two routes here."""
    routes = request.app.router.routes
    allowed = [
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] is Match.FULL for r in routes)
    ]
    return ", ".join(allowed)


async def parley_error(_request: Request, exc: Exception) -> JSONResponse:
    """A ParleyError as its response; also the handler of the apps mounted inside this one
    (the OAuth authorization server's), whose errors never reach this app's handlers."""
    assert isinstance(exc, ParleyError)
    headers = {}
    if "retry_after_seconds" in exc.extra:
        headers["Retry-After"] = str(exc.extra["retry_after_seconds"])
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


def install(app: FastAPI) -> None:
    app.add_exception_handler(ParleyError, parley_error)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        details = [
            {
                "field": ".".join(str(p) for p in err.get("loc", ()) if p != "body"),
                "problem": err.get("msg"),
            }
            for err in exc.errors()
        ]
        return _error(422, "validation_error", "The request is not valid", details=details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == _UNPARSEABLE:
            # A body json.loads cannot take (invalid UTF-8, nesting past the recursion
            # limit): invalid input like any other, not a different shape.
            return _error(
                422,
                "validation_error",
                "The request is not valid",
                details=[{"field": "", "problem": "Body is not valid UTF-8 JSON"}],
            )
        response = _error(exc.status_code, *status_code_and_text(exc.status_code, exc.detail))
        response.headers.update(exc.headers or {})  # 401's WWW-Authenticate, say
        if exc.status_code == 405:
            response.headers["Allow"] = _allowed_methods(request)
        return response

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return _error(500, "internal_error", "Something went wrong on our side")
