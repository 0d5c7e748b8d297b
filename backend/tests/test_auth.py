"""Token checks are cached per token: the cache must never outlive a token or cross secrets."""

from __future__ import annotations

import time

import pytest

from parley.auth import mint_token, verify_token
from parley.errors import Unauthorized

pytestmark = pytest.mark.unit

SECRET = "s" * 32


def test_a_token_verified_once_still_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    token = mint_token(secret=SECRET, user_id="alice", ttl_seconds=60)
    assert verify_token(secret=SECRET, token=token) == "alice"
    later = time.time() + 61
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(Unauthorized, match="expired"):
        verify_token(secret=SECRET, token=token)


def test_a_verified_token_is_refused_under_another_secret() -> None:
    token = mint_token(secret=SECRET, user_id="alice", ttl_seconds=60)
    assert verify_token(secret=SECRET, token=token) == "alice"
    with pytest.raises(Unauthorized, match="Invalid token"):
        verify_token(secret="t" * 32, token=token)


def test_a_bad_token_is_refused_every_time() -> None:
    for _ in range(2):
        with pytest.raises(Unauthorized):
            verify_token(secret=SECRET, token="not.a.token")
