"""Two Parley instances on a Citus cluster (a coordinator and two workers), and people whose
rows live on each worker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from parley.assistant.offline import OfflineModel
from tests.conftest import Server, serve

# What the tests need of both instances: a reply written slowly enough to be watched as it
# grows, MCP tasks polled often, pushes to the loopback fake push service (any port: an
# address allows only the ports its pattern names).
SETTINGS = {
    "PARLEY_MCP_TASK_POLL_MS": 100,
    "PARLEY_PUSH_ALLOWED_HOSTS": "127.0.0.1:*",
    "PARLEY_PUSH_RETRY_BASE": 0.05,
}


@pytest.fixture(scope="module")
async def instances(cluster_url: str) -> AsyncIterator[tuple[Server, Server]]:
    """Two instances on the cluster's coordinator, as two servers of one deployment."""
    async with (
        serve(cluster_url, model=OfflineModel(word_pause=0.01), **SETTINGS) as one,
        serve(cluster_url, model=OfflineModel(word_pause=0.01), **SETTINGS) as two,
    ):
        yield one, two
