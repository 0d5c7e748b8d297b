"""The VAPID header cache: one signature per push service origin, renewed before it expires
(a push service refuses an expired JWT, so a stale header would lose every push)."""

from __future__ import annotations

import jwt
import pytest
from py_vapid import Vapid

from parley.push import vapid
from parley.push.vapid import RENEW_BEFORE, TOKEN_SECONDS, VapidKey


def _key() -> VapidKey:
    made = Vapid()
    made.generate_keys()
    return VapidKey(made, "mailto:ops@example.test")


def _claims(header: str) -> dict[str, object]:
    token = header.removeprefix("vapid t=").split(",")[0]
    claims: dict[str, object] = jwt.decode(token, options={"verify_signature": False})
    return claims


def test_one_header_per_origin_reused_then_renewed(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr(vapid.time, "time", lambda: now[0])
    key = _key()
    first = key.authorization("https://fcm.googleapis.com/fcm/send/abc")
    assert _claims(first) == {
        "aud": "https://fcm.googleapis.com",
        "sub": "mailto:ops@example.test",
        "exp": 1_000_000 + TOKEN_SECONDS,
    }
    # Another device on the same service: the same signed header, no new signature.
    assert key.authorization("https://fcm.googleapis.com/fcm/send/xyz") == first
    # Another service gets its own audience.
    other = key.authorization("https://updates.push.services.mozilla.com/wpush/v2/q")
    assert _claims(other)["aud"] == "https://updates.push.services.mozilla.com"
    # Still reused until less than RENEW_BEFORE is left...
    now[0] += TOKEN_SECONDS - RENEW_BEFORE - 1
    assert key.authorization("https://fcm.googleapis.com/fcm/send/abc") == first
    # ...then a fresh one, valid for the whole TOKEN_SECONDS again.
    now[0] += 2
    renewed = key.authorization("https://fcm.googleapis.com/fcm/send/abc")
    assert renewed != first
    assert _claims(renewed)["exp"] == int(now[0]) + TOKEN_SECONDS
