"""A fake push service on loopback and servers allowed to post to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from parley.db import Database
from tests.conftest import serve
from tests.push.fake_push import FakePushService, fake_push_service

LOOPBACK = {"PARLEY_PUSH_ALLOWED_HOSTS": "127.0.0.1:*", "PARLEY_PUSH_RETRY_BASE": 0.05}


@pytest.fixture
async def push_service() -> AsyncIterator[FakePushService]:
    async with fake_push_service() as service:
        yield service


@pytest.fixture
def push_server(migrated: str, db: Database) -> Callable[..., Any]:
    """`async with push_server(**settings) as s:` an app that may post to the loopback fake."""

    def factory(**overrides: Any) -> Any:
        return serve(migrated, **{**LOOPBACK, **overrides})

    return factory
