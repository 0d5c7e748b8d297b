"""Parley on a Citus cluster beside one PostgreSQL, in the same run (`bench/run.py --cluster`).

The cluster is `parley cluster`'s, on this machine: a coordinator and two workers of the
embedded PostgreSQL with Citus built from `vendor/` (cached), in a temporary directory. On one
machine every node shares the same cores, so these figures say what distribution *costs* (the
extra hops and the planning of each statement), not what it buys: that needs the nodes on
machines of their own.

- *Turn cost*: the same `add a task to buy milk` turns through `parley serve` at concurrency
  1 (the lean client, as section 2's server turn cost) and 16, against each database: latency,
  and CPU per turn of the server and of PostgreSQL (every node's processes, on the cluster).
- *Writers and cross-instance delivery*: section 8's writers (`bench/writers.py`) against the
  cluster: inserts per second through `parley_append_message` with delivery off and on, the
  delivery delay to an SSE client on another instance, and each node's share of the writes
  (whose rows it holds): the ceiling per node.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lib import BenchDatabase, ServerProcess, pg_connection


class ClusterDatabase(BenchDatabase):
    """A local Citus cluster (a coordinator and `workers` workers), Parley migrated onto it."""

    def __init__(self, workers: int = 2) -> None:
        super().__init__()
        self.external = False
        self.workers = workers
        self.cluster: Any = None

    def start(self) -> str:
        from parley.cluster.build import ensure_built
        from parley.cluster.local import LocalCluster
        from parley.config import Settings
        from parley.migrate import upgrade

        settings = Settings()
        build = ensure_built(settings.citus_source, settings.citus_cache)
        self.cluster = LocalCluster(self.tmp / "cluster", build)
        self.cluster.start(workers=self.workers)
        url = Settings(DATABASE_URL=self.cluster.url).database_url
        assert url
        self.url = url
        self.pgdata = [self.cluster.pgdata(node) for node in self.cluster.nodes]
        upgrade(self.url)
        return self.url

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
        super().stop()


def turn_cost(db: BenchDatabase, *, quick: bool, name: str) -> list[dict[str, Any]]:
    """Tool turns at concurrency 1 (lean client) and 16 (httpx) on one `parley serve`."""
    from chat_load import load

    plan = [(1, True, 10, 30 if quick else 200), (16, False, 2, 4 if quick else 15)]
    server = ServerProcess(db, name=f"cost-{name}").start()
    try:
        return [
            load(
                server,
                db,
                concurrency=concurrency,
                turns_per_worker=turns,
                warmup_per_worker=warmup,
                message="add a task to buy milk",
                tag=f"cost-{name}",
                lean=lean,
            )
            for concurrency, lean, warmup, turns in plan
        ]
    finally:
        server.stop()


def node_shares(db: ClusterDatabase, writers: dict[str, Any]) -> list[dict[str, Any]]:
    """Each worker's writers and their inserts per second, at the top step of `writers`."""
    targets: list[tuple[int, str]] = writers["targets"]
    top = writers["on"][-1]
    users = [user for _conversation, user in targets[: top["writers"]]]
    ports = asyncio.run(_ports_of(db.url, users))
    shares = []
    for node in db.cluster.workers:
        mine = [i for i, user in enumerate(users) if ports[user] == node.port]
        shares.append(
            {
                "node": node.name,
                "writers": len(mine),
                "rate": sum(top["per_writer"][i] for i in mine),
            }
        )
    return shares


async def _ports_of(url: str, users: list[str]) -> dict[str, int]:
    async with pg_connection(url) as conn:
        rows = await conn.fetch(
            "SELECT u AS user_id, (SELECT nodeport FROM citus_shards WHERE table_name ="
            " 'conversations'::regclass AND shardid ="
            " get_shard_id_for_distribution_column('conversations', u)) AS port"
            " FROM unnest($1::text[]) u",
            users,
        )
    return {r["user_id"]: int(r["port"]) for r in rows}
