"""The per-user rate cap."""

from __future__ import annotations

import time

import pytest

from parley.errors import RateLimited
from parley.limits import RateLimiter

pytestmark = pytest.mark.unit


def test_a_user_over_the_cap_waits_and_others_do_not(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    limiter = RateLimiter(2)
    limiter.check("alice")
    limiter.check("alice")
    with pytest.raises(RateLimited) as refused:
        limiter.check("alice")
    assert refused.value.extra["retry_after_seconds"] == 61
    limiter.check("bob")
    now[0] += 61
    limiter.check("alice")


def test_zero_turns_the_cap_off():
    limiter = RateLimiter(0)
    for _ in range(1000):
        limiter.check("alice")
