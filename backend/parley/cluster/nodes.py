"""The nodes of a Citus cluster that hold people's rows, and where on each the tables the
realtime readers poll are: what an instance's per-node readers connect to and read.

Snapshots and transaction ids are a node's own, so the reader that finds new rows by
snapshot (`realtime.reader`) runs against each node, over the shards placed there, never
through the coordinator (specs/scale.md, *Delivery per node*). A node is reached at the name
and port the coordinator knows it by (`pg_dist_node`), with the credentials and database of
the coordinator's URL, as Citus's own connections between nodes are.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg
from sqlalchemy.engine import make_url

from parley.cluster.layout import READ_BY_XID

_CITUS = "SELECT true FROM pg_catalog.pg_extension WHERE extname = 'citus'"
_PLACEMENTS = """
SELECT n.groupid, n.nodename, n.nodeport, s.logicalrelid::regclass::text AS table_name,
       shard_name(s.logicalrelid, s.shardid) AS shard
FROM pg_dist_shard s
JOIN pg_dist_placement p ON p.shardid = s.shardid
JOIN pg_dist_node n ON n.groupid = p.groupid
WHERE s.logicalrelid::regclass::text = ANY($1::text[])
  AND n.isactive AND n.noderole = 'primary'
ORDER BY n.groupid, s.shardid
"""
_IS_DISTRIBUTED = """
SELECT true FROM pg_dist_partition WHERE logicalrelid = 'messages'::regclass AND partmethod = 'h'
"""


@dataclass(frozen=True)
class Node:
    """A node holding people's rows: where to reach it, and each polled table's shards there."""

    group: int
    host: str
    port: int
    shards: dict[str, tuple[str, ...]]

    def dsn(self, coordinator_dsn: str) -> str:
        """The coordinator's libpq URL, pointed at this node."""
        url = make_url(coordinator_dsn).set(host=self.host, port=self.port)
        return url.render_as_string(hide_password=False)


async def placed(conn: asyncpg.Connection) -> dict[int, Node] | None:
    """The nodes holding shards of the polled tables, by group, from the coordinator's
    metadata; None when the database is not a Citus cluster with Parley's tables
    distributed (one PostgreSQL: its one reader polls the tables themselves)."""
    if not await conn.fetchval(_CITUS):
        return None
    if not await conn.fetchval(_IS_DISTRIBUTED):
        return None
    nodes: dict[int, tuple[str, int, dict[str, list[str]]]] = {}
    for row in await conn.fetch(_PLACEMENTS, list(READ_BY_XID)):
        _host, _port, shards = nodes.setdefault(
            row["groupid"], (row["nodename"], row["nodeport"], {t: [] for t in READ_BY_XID})
        )
        shards[row["table_name"]].append(row["shard"])
    return {
        group: Node(group, host, port, {t: tuple(s) for t, s in shards.items()})
        for group, (host, port, shards) in nodes.items()
    }
