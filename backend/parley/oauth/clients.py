"""OAuth clients of `/mcp`: registered by RFC 7591 dynamic registration, or named by a Client
ID Metadata Document (the `client_id` is an https URL; the server fetches the JSON there).

A document is fetched with a timeout and a size cap, from a public address only (the name is
resolved first and the connection pinned to the address that was checked, so a name that
re-resolves to a private one between check and fetch gains nothing), and kept for
`DOCUMENT_TTL` so a token request does not fetch it again.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull
from pydantic import AnyUrl, ValidationError

from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput

from . import redirects, store

DOCUMENT_TTL_SECONDS = 600
DOCUMENT_MAX_BYTES = 64 * 1024
FETCH_TIMEOUT_SECONDS = 5.0
PUBLIC_AUTH = "none"  # a metadata-document client has no secret: PKCE is its proof


class Client(OAuthClientInformationFull):
    """A client whose redirect URIs are compared by `redirects.matches`: as strings, a
    loopback one on any port (RFC 8252 §7.3: a native app such as Claude Code listens on
    whatever port is free, and its metadata document lists `http://localhost/callback`). A
    stored URI that the rules refuse (a client registered before them) is never used, even as
    the one default."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        registered = [str(uri) for uri in self.redirect_uris or []]
        usable = [uri for uri in registered if redirects.acceptable(uri)]
        if redirect_uri is None:
            if len(registered) == 1 and usable:
                return AnyUrl(usable[0])
            raise InvalidRedirectUriError(
                "redirect_uri must be specified unless the client has exactly one registered URI"
            )
        requested = str(redirect_uri)
        if any(redirects.matches(requested, uri) for uri in usable):
            return redirect_uri
        raise InvalidRedirectUriError(f"Redirect URI '{requested}' not registered for client")


def is_document_url(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def check_document_url(client_id: str, *, allow_private: bool) -> None:
    """The draft's rules for a client_id URL: https (http only where private addresses are
    allowed, for tests), a path, no fragment, no user info, no dot segments."""
    parts = urlsplit(client_id)
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        raise InvalidInput("A client_id URL must be https")
    if not parts.hostname or parts.username or parts.password or parts.fragment:
        raise InvalidInput("A client_id URL needs a host and no user info or fragment")
    segments = parts.path.split("/")
    if parts.path in ("", "/") or "." in segments or ".." in segments:
        raise InvalidInput("A client_id URL needs a path without dot segments")


async def _public_address(host: str, port: int, *, allow_private: bool) -> str:
    """One address of `host` to connect to; every address it has must be public."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise InvalidInput(f"Cannot resolve the client_id host: {exc}") from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not addresses:
        raise InvalidInput("The client_id host has no address")
    if not allow_private and not all(a.is_global for a in addresses):
        raise InvalidInput("The client_id host is not a public address")
    return str(addresses[0])


async def fetch_document(client_id: str, *, allow_private: bool) -> dict[str, Any]:
    check_document_url(client_id, allow_private=allow_private)
    parts = urlsplit(client_id)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = await _public_address(host, port, allow_private=allow_private)
    literal = f"[{address}]" if ":" in address else address
    pinned = urlunsplit((parts.scheme, f"{literal}:{port}", parts.path, parts.query, ""))
    headers = {"Host": parts.netloc, "Accept": "application/json"}
    body = bytearray()
    try:
        async with (
            httpx.AsyncClient(timeout=FETCH_TIMEOUT_SECONDS, follow_redirects=False) as client,
            client.stream(
                "GET", pinned, headers=headers, extensions={"sni_hostname": host}
            ) as response,
        ):
            if response.status_code != 200:
                raise InvalidInput(f"The client metadata document answered {response.status_code}")
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > DOCUMENT_MAX_BYTES:
                    raise InvalidInput("The client metadata document is too large")
    except httpx.HTTPError as exc:
        raise InvalidInput(f"Cannot fetch the client metadata document: {exc}") from exc
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise InvalidInput("The client metadata document is not JSON") from exc
    if not isinstance(document, dict):
        raise InvalidInput("The client metadata document is not a JSON object")
    return document


def from_document(client_id: str, document: dict[str, Any]) -> Client:
    """A document must name itself and list its redirect URIs; it gets no secret."""
    if document.get("client_id") != client_id:
        raise InvalidInput("The client metadata document names another client_id")
    method = document.get("token_endpoint_auth_method", PUBLIC_AUTH)
    if method != PUBLIC_AUTH:
        raise InvalidInput("A metadata-document client must use token_endpoint_auth_method none")
    uris = document.get("redirect_uris")
    if not uris or not isinstance(uris, list):
        raise InvalidInput("The client metadata document lists no redirect_uris")
    for uri in uris:
        try:
            redirects.check(uri)
        except redirects.BadRedirect as exc:
            raise InvalidInput(f"The client metadata document: {exc.description}") from exc
    try:
        return Client.model_validate(
            {
                **{k: v for k, v in document.items() if k != "client_secret"},
                "client_id": client_id,
                "token_endpoint_auth_method": PUBLIC_AUTH,
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }
        )
    except ValidationError as exc:
        raise InvalidInput(f"The client metadata document is invalid: {exc}") from exc


class Clients:
    """Where the authorization server finds a client by its id."""

    def __init__(self, db: Database, *, allow_private: bool) -> None:
        self.db = db
        self.allow_private = allow_private

    @retry_on_reconnect
    async def _stored(self, client_id: str, *, fresh: bool) -> Client | None:
        async with self.db.connection() as conn:
            info = await store.client_info(
                conn, client_id=client_id, fresh_seconds=DOCUMENT_TTL_SECONDS if fresh else None
            )
        return None if info is None else Client.model_validate(info)

    async def get(self, client_id: str) -> Client | None:
        if len(client_id) > 2000:
            return None
        stored = await self._stored(client_id, fresh=True)
        if stored is not None or not is_document_url(client_id):
            return stored
        try:
            document = await fetch_document(client_id, allow_private=self.allow_private)
            client = from_document(client_id, document)
        except InvalidInput:
            return None
        await self.save(client, source="document")
        return client

    async def register(self, client: OAuthClientInformationFull) -> None:
        await self.save(client, source="registered")

    async def save(self, client: OAuthClientInformationFull, *, source: str) -> None:
        async with self.db.connection() as conn:
            await store.save_client(
                conn,
                client_id=client.client_id,
                source=source,
                info=client.model_dump(mode="json", exclude_none=True),
            )
