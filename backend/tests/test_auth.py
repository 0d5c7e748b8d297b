"""Token checks are cached per token: the cache must never outlive a token or cross secrets.
An agent's token names the agent; nothing else can."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import jwt
import pytest

from parley.auth import Caller, mint_token, verify_caller, verify_token
from parley.errors import InvalidInput, Unauthorized

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


def test_an_agents_token_names_the_agent_and_nothing_else_can() -> None:
    caller = verify_caller(
        secret=SECRET,
        token=mint_token(secret=SECRET, user_id="alice", ttl_seconds=60, agent="planner"),
    )
    assert caller == Caller("alice", "planner") and caller.role == "agent"
    person = verify_caller(
        secret=SECRET, token=mint_token(secret=SECRET, user_id="alice", ttl_seconds=60)
    )
    assert person.agent is None and person.role == "user" and person.author == "alice"
    with pytest.raises(InvalidInput):
        mint_token(secret=SECRET, user_id="alice", ttl_seconds=60, agent="no spaces")
    forged = jwt.encode({"sub": "alice", "exp": int(time.time()) + 60, "agent": ["x"]}, SECRET)
    with pytest.raises(Unauthorized):
        verify_caller(secret=SECRET, token=forged)


def test_parley_token_mints_an_agents_token() -> None:
    env = {**os.environ, "PARLEY_AUTH_SECRET": SECRET}
    parley = str(Path(sys.executable).with_name("parley"))
    out = subprocess.run(
        [parley, "token", "--user", "alice", "--agent", "planner"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert verify_caller(secret=SECRET, token=out) == Caller("alice", "planner")
    bad = subprocess.run(
        [parley, "token", "--user", "alice", "--agent", "a b"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "agent" in bad.stderr
