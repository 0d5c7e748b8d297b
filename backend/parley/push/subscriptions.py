"""A person's devices (Web Push subscriptions), what notifies them, and muted conversations.

A subscription's endpoint is a URL the browser (so, the client) chose; the server later
posts to it. Only hosts on `PARLEY_PUSH_ALLOWED_HOSTS` are accepted, here and again when
sending, so a subscription can never make the server reach anything else (no SSRF).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec

from parley.conversations import check_id, not_found
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound

from . import store
from .store import Preferences, Subscription

MAX_ENDPOINT = 2048
MAX_LABEL = 100
KINDS = ("question", "run_failed", "message")
# An endpoint is printable ASCII without a backslash: URL parsers disagree about the rest
# (a backslash ends the host for a browser, not for urlsplit), and a push service's URL,
# serialized by the browser, never holds them.
_URL_CHARS = re.compile(r"[!-\[\]-~]+")
# A host name: lowercase ASCII labels (an international name as the browser serializes it,
# `xn--`), no empty label (so no trailing dot).
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
# A last label a resolver may read as a number (`2130706433`, `127.1`, `0x7f.1`): no real
# top-level domain is one, and an address written so is not the address a pattern names.
_NUMERIC = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)")
_B64URL = re.compile(r"[A-Za-z0-9_-]*")


def _b64(value: str) -> bytes:
    """Strict base64url (padding optional): `urlsafe_b64decode` alone skips what is not in
    the alphabet, so `!!!` would decode to nothing rather than be refused."""
    bare = value.rstrip("=")
    if not _B64URL.fullmatch(bare) or len(value) - len(bare) > 2:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _pattern(pattern: str) -> tuple[str, str]:
    """A `PARLEY_PUSH_ALLOWED_HOSTS` entry as (host, port): `host`, `host:443`, `host:*`,
    `[::1]:8443`; the port is "" when none is named."""
    if pattern.startswith("["):
        host, _, rest = pattern[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else ""
    if pattern.count(":") == 1:
        host, port = pattern.split(":")
        return host, port
    return pattern, ""


def _host_matches(host: str, address: Any, name: str) -> bool:
    """A name matches itself, `*.name` its subdomains (one label or more), an address only
    the same address written in the pattern (never through a wildcard)."""
    if address is not None:
        return _address(name) == address
    if name.startswith("*."):
        return host.endswith(name[1:]) and len(host) > len(name) - 1
    return host == name


def host_allowed(endpoint: str, allowed: list[str]) -> bool:
    """Whether `endpoint` is an https URL on an allowed host and port. A pattern without a
    port allows the default port only (443); plain http only to a loopback address a
    pattern names (a local push service, in tests). No user info, no host a parser could
    read two ways: the sender re-checks each push with this before posting to it."""
    if not _URL_CHARS.fullmatch(endpoint):
        return False
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return False
    if "@" in parts.netloc or not host:
        return False
    address = _address(host)
    if address is None and (
        not _HOST.fullmatch(host) or _NUMERIC.fullmatch(host.rsplit(".", 1)[-1])
    ):
        return False
    if parts.scheme == "https":
        default = 443
    elif parts.scheme == "http" and address is not None and address.is_loopback:
        default = 80
    else:
        return False
    port = default if port is None else port
    for pattern in allowed:
        name, want = _pattern(pattern)
        port_ok = want == "*" or (want == "" and port == default) or want == str(port)
        if port_ok and _host_matches(host, address, name):
            return True
    return False


_PORT = r"(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
# The labels a `*.` pattern stands for: one or more, as `_host_matches` takes them.
_SUBDOMAINS = rf"{_LABEL}(?:\.{_LABEL})*\."
# The keys `check_subscription` takes, in base64url: a 65-byte point whose first byte is 4,
# and a 16-byte secret (padded or not).
P256DH_PATTERN = r"^B[A-P][A-Za-z0-9_-]{85}=?$"
AUTH_PATTERN = r"^[A-Za-z0-9_-]{22}={0,2}$"


def _origins(pattern: str) -> list[str]:
    """One `PARLEY_PUSH_ALLOWED_HOSTS` entry as the scheme://host[:port] alternatives of a
    JSON Schema pattern: https, and http too for a loopback address; a host name as written
    (`*.` for one label or more), an address as written; the port as `host_allowed` reads it
    (none named: the scheme's default, written or not). An entry it could never match gives
    none."""
    name, want = _pattern(pattern)
    address = _address(name)
    bare = name[2:] if name.startswith("*.") else name
    if address is not None:
        host = name.replace(".", "\\.")
        host = f"\\[{host}\\]" if address.version == 6 else host
        schemes = {"https": 443, "http": 80} if address.is_loopback else {"https": 443}
    elif _HOST.fullmatch(bare) and not _NUMERIC.fullmatch(bare.rsplit(".", 1)[-1]):
        host = ("" if bare == name else _SUBDOMAINS) + bare.replace(".", "\\.")
        schemes = {"https": 443}
    else:
        return []
    if want != "*" and want != "" and not want.isdigit():
        return []
    found = []
    for scheme, default in schemes.items():
        if want == "*":
            port = f"(?::{_PORT})?"
        elif want in ("", str(default)):
            port = f"(?::{default})?"
        else:
            port = f":{int(want)}"
        found.append(f"{scheme}://{host}{port}")
    return found


def endpoint_pattern(allowed: list[str]) -> str:
    """The endpoints `host_allowed` takes, as a JSON Schema (ECMA-262) pattern for the API's
    schema: a URL on an allowed host and port, and a path of URL characters. It is at most
    stricter than the check (an address only as the entry writes it, no fragment)."""
    alternatives = "|".join(o for entry in allowed for o in _origins(entry)) or "(?!)"
    return f"^(?:{alternatives})(?:[/?][A-Za-z0-9\\-._~!$&'()*+,;=:@%/?]*)?$"


def check_subscription(
    *, endpoint: str, p256dh: str, auth: str, allowed: list[str]
) -> tuple[str, str, str]:
    """The browser's PushSubscription, checked: an allowed push service's URL, a `p256dh`
    that is a point on P-256 (65 bytes, uncompressed: each push is encrypted to it) and a
    16-byte `auth` secret, both base64url."""
    if len(endpoint) > MAX_ENDPOINT or not host_allowed(endpoint, allowed):
        raise InvalidInput(
            "endpoint is not at a push service this server sends to",
            code="push_service_not_allowed",
            details=[{"field": "endpoint"}],
        )
    try:
        key = _b64(p256dh)
        if len(key) != 65 or key[0] != 4:
            raise ValueError("not an uncompressed point")
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)
    except (binascii.Error, ValueError):
        raise InvalidInput(
            "keys.p256dh must be an uncompressed P-256 public key, a point on the curve"
            " (base64url)",
            details=[{"field": "keys.p256dh"}],
        ) from None
    try:
        secret = _b64(auth)
    except (binascii.Error, ValueError):
        secret = b""
    if len(secret) != 16:
        raise InvalidInput(
            "keys.auth must be a 16-byte secret (base64url)", details=[{"field": "keys.auth"}]
        )
    return endpoint, p256dh, auth


@retry_on_reconnect
async def subscribe(
    db: Database,
    *,
    user_id: str,
    endpoint: str,
    p256dh: str,
    auth: str,
    label: str,
    allowed: list[str],
) -> tuple[Subscription, bool]:
    """Add a device, or renew its keys (a browser re-subscribing gives the same endpoint).
    Returns the subscription and whether it is new."""
    endpoint, p256dh, auth = check_subscription(
        endpoint=endpoint, p256dh=p256dh, auth=auth, allowed=allowed
    )
    label = " ".join(label.split())[:MAX_LABEL]
    async with db.connection() as conn:
        return await store.subscribe(
            conn, user_id=user_id, endpoint=endpoint, p256dh=p256dh, auth=auth, label=label
        )


@retry_on_reconnect
async def list_subscriptions(db: Database, *, user_id: str) -> list[Subscription]:
    async with db.connection() as conn:
        return await store.subscriptions_of(conn, user_id=user_id)


@retry_on_reconnect
async def unsubscribe(db: Database, *, user_id: str, subscription_id: int) -> None:
    """Remove a device (its pending pushes go with it). Another person's is 404."""
    gone = False
    if 1 <= subscription_id < 2**63:
        async with db.connection() as conn:
            gone = await store.unsubscribe(conn, user_id=user_id, subscription_id=subscription_id)
    if not gone:
        raise NotFound(
            f"Push subscription {subscription_id} not found", subscription_id=subscription_id
        )


async def owned_subscription(db: Database, *, user_id: str, subscription_id: int) -> int | None:
    """The id of the person's own device, or None (it is someone else's, or gone)."""
    if not 1 <= subscription_id < 2**63:
        return None
    async with db.connection() as conn:
        return await store.owned_subscription(
            conn, user_id=user_id, subscription_id=subscription_id
        )


@retry_on_reconnect
async def preferences(db: Database, *, user_id: str) -> Preferences:
    async with db.connection() as conn:
        return await store.preferences(conn, user_id=user_id)


@retry_on_reconnect
async def set_preferences(db: Database, *, user_id: str, changes: dict[str, bool]) -> Preferences:
    """Change the kinds named in `changes`; the others keep their values."""
    known = {k: v for k, v in changes.items() if k in (*KINDS, "email_reminders")}
    if known:
        async with db.connection() as conn:
            await store.set_preferences(conn, user_id=user_id, changes=known)
    return await preferences(db, user_id=user_id)


@retry_on_reconnect
async def set_muted(db: Database, *, user_id: str, conversation_id: int, muted: bool) -> bool:
    """Mute or unmute one of the person's conversations (another's is 404)."""
    check_id(conversation_id)
    async with db.transaction() as conn:
        if not await store.conversation_owned(
            conn, user_id=user_id, conversation_id=conversation_id
        ):
            raise not_found(conversation_id)
        if muted:
            await store.mute(conn, user_id=user_id, conversation_id=conversation_id)
        else:
            await store.unmute(conn, user_id=user_id, conversation_id=conversation_id)
    return muted
