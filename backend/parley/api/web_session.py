"""The browser's side of a web session: the `parley_session` cookie, the Origin check that
keeps other sites from using it, and the client's address for sign-in limits."""

from __future__ import annotations

import ipaddress
from datetime import timedelta

from fastapi import Request, Response

from parley.config import Settings
from parley.errors import Forbidden

COOKIE = "parley_session"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def lifetime(settings: Settings) -> timedelta:
    return timedelta(days=settings.session_days)


def _secure(settings: Settings, request: Request) -> bool:
    return (
        request.url.scheme == "https"
        or settings.web_origin.startswith("https://")
        or settings.public_url.startswith("https://")
    )


def set_cookie(response: Response, *, request: Request, settings: Settings, value: str) -> None:
    response.set_cookie(
        COOKIE,
        value,
        max_age=int(lifetime(settings).total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=_secure(settings, request),
    )


def clear_cookie(response: Response, *, request: Request, settings: Settings) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=_secure(settings, request)
    )


def check_origin(request: Request, settings: Settings, *, required: bool) -> None:
    """A cookie-authenticated unsafe request must come from the web UI (`required`); any
    request that names another site is refused (a cross-site sign-in form, say)."""
    origin = request.headers.get("origin")
    if origin is None and not required:
        return
    if origin is None or origin.rstrip("/") not in settings.web_origins:
        raise Forbidden(
            "This request must come from the Parley web app (its Origin is not allowed)",
            code="bad_origin",
        )


def _trusted(host: str, settings: Settings) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for entry in settings.trusted_proxies:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def client_address(request: Request, settings: Settings) -> str:
    """The peer's address, or the one a trusted proxy (the web UI's) says it forwards for:
    the last X-Forwarded-For entry, which that proxy wrote."""
    peer = request.client.host if request.client else ""
    forwarded = request.headers.get("x-forwarded-for")
    if forwarded and _trusted(peer, settings):
        last = forwarded.split(",")[-1].strip()
        if last:
            return last
    return peer


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
