"""The browser's side of a web session: the `parley_session` cookie, the Origin check that
keeps other sites from using it, and the client's address for sign-in limits."""

from __future__ import annotations

from datetime import timedelta

from fastapi import Request, Response

from parley import addresses
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


def client_address(request: Request, settings: Settings) -> str:
    """Who is asking, for the sign-in limits and the dev sign-in's loopback check: the TCP
    peer, unless the peer is a trusted proxy (PARLEY_TRUSTED_PROXIES). Then X-Forwarded-For
    is read from the right, each trusted proxy's entry naming the hop before it, and the
    client is the first entry that is not a trusted proxy: entries further left are that
    client's own claims. An entry that is no address stops the walk as `unknown` (never
    loopback, never trusted): a proxy that wrote it does not know who its client is."""
    peer = addresses.parse(request.client.host if request.client else None)
    if peer is None:
        return addresses.UNKNOWN
    trusted = settings.trusted_proxies
    if not addresses.within(peer, trusted):
        return str(peer)
    hops = [
        hop for header in request.headers.getlist("x-forwarded-for") for hop in header.split(",")
    ]
    client = peer
    for hop in reversed(hops):
        if not hop.strip():
            continue
        address = addresses.parse(hop)
        if address is None:
            return addresses.UNKNOWN
        client = address
        if not addresses.within(address, trusted):
            break
    return str(client)
