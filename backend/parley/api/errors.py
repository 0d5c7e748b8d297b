"""The one place errors become HTTP: ParleyError, validation failures, and the unexpected."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

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


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)


def install(app: FastAPI) -> None:
    @app.exception_handler(ParleyError)
    async def parley_error(_request: Request, exc: ParleyError) -> JSONResponse:
        headers = {}
        if "retry_after_seconds" in exc.extra:
            headers["Retry-After"] = str(exc.extra["retry_after_seconds"])
        return JSONResponse(exc.body(), status_code=exc.status, headers=headers)

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
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return _error(500, "internal_error", "Something went wrong on our side")
