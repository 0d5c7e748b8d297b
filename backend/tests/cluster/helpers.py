"""Where a person's rows live on the test cluster, and reading a worker directly."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from parley.cluster.local import LocalCluster, Node
from parley.db import Database

_NODE_OF = """
SELECT nodeport FROM citus_shards
WHERE table_name = 'conversations'::regclass
  AND shardid = get_shard_id_for_distribution_column('conversations', $1::text)
"""


class Placement:
    """Which worker holds whose rows."""

    def __init__(self, cluster: LocalCluster, db: Database) -> None:
        self.cluster = cluster
        self.db = db

    async def worker_of(self, user_id: str) -> Node:
        async with self.db.connection() as conn:
            port = await conn.fetchval(_NODE_OF, user_id)
        [node] = [n for n in self.cluster.workers if n.port == port]
        return node

    async def person_on(self, worker: Node, name: str = "p") -> str:
        """A new person (a user id no test used before) whose rows live on `worker`."""
        for _ in range(200):
            user_id = f"{name}-{uuid.uuid4().hex[:10]}"
            if (await self.worker_of(user_id)).port == worker.port:
                return user_id
        raise AssertionError(f"no user id lands on {worker.name}")

    async def one_on_each(self, name: str = "p") -> list[str]:
        """A new person on each worker, in the workers' order."""
        return [await self.person_on(w, f"{name}{i}") for i, w in enumerate(self.cluster.workers)]


@asynccontextmanager
async def on_node(node: Node, database: str = "parley_test") -> AsyncIterator[asyncpg.Connection]:
    """A plain connection to one node (not through the coordinator)."""
    conn = await asyncpg.connect(node.url(database))
    try:
        yield conn
    finally:
        await conn.close()
