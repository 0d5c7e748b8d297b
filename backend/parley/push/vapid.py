"""The server's VAPID identity (RFC 8292): one P-256 key for every instance, and the signed
`Authorization` header each push service wants (one per service origin, reused until near
its expiry: signing per push would cost an ECDSA signature per device)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid, b64urlencode

from parley.db import Database

from . import store

# A VAPID JWT may live at most 24 h; a fresh one is made when less than an hour is left.
TOKEN_SECONDS = 12 * 3600
RENEW_BEFORE = 3600


def _load(private_key: str) -> Vapid:
    text = private_key.strip()
    if text.startswith("-----BEGIN"):
        return Vapid.from_pem(text.encode())
    return Vapid.from_string(text)


@dataclass
class VapidKey:
    key: Vapid
    subject: str
    _headers: dict[str, tuple[float, str]] = field(default_factory=dict)

    @property
    def public_key(self) -> str:
        """The application server key a browser subscribes with (base64url, uncompressed)."""
        raw = self.key.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64urlencode(raw)

    def authorization(self, endpoint: str) -> str:
        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        now = time.time()
        cached = self._headers.get(audience)
        if cached is not None and cached[0] - now > RENEW_BEFORE:
            return cached[1]
        expires = int(now) + TOKEN_SECONDS
        header = self.key.sign({"aud": audience, "sub": self.subject, "exp": expires})
        self._headers[audience] = (expires, header["Authorization"])
        return header["Authorization"]


async def load_key(db: Database, *, configured: str | None, subject: str) -> VapidKey:
    """The configured key, else the one kept in the database, made by whichever instance
    got there first (the others read it back: one key for all)."""
    if configured:
        return VapidKey(_load(configured), subject)
    async with db.connection() as conn:
        pem = await store.vapid_key(conn)
        if pem is None:
            made = Vapid()
            made.generate_keys()
            await store.offer_vapid_key(conn, pem=made.private_pem().decode())
            pem = await store.vapid_key(conn)
            assert pem is not None  # this instance's, or the one stored first
    return VapidKey(_load(pem), subject)
