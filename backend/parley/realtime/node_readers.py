"""On a Citus cluster: one reader per node that holds people's rows, all feeding the same hub.

The reader's proof that no committed row is skipped (`realtime.reader`) rests on a snapshot
of the database the rows are in, and a cluster has one per node: its transaction ids and
snapshots are the node's own. So each instance keeps one connection per node (not per
shard, not per conversation), and on it a `Reader` with its own cursor polls the shards
placed there. A person's rows are all on one node, so the order per conversation and per
person is that node's, as on one PostgreSQL.

The nodes and their shards come from the coordinator's metadata (`cluster.nodes.placed`),
read when the instance connects and at every probe: a new node gets a reader with a fresh
cursor, a node gone loses its reader. When shards moved (a rebalance) or a node's
connection was lost, what the readers may have missed is made up the way a lost listener
connection is: every watched conversation and wait re-reads from its own id cursor
(`on_catch_up`), so a move costs a catch-up read, never a message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import asyncpg

from parley.cluster.nodes import Node
from parley.db import SERVER_SETTINGS
from parley.realtime.reader import Counters, Found, Reader
from parley.realtime.store import poll_statement

log = logging.getLogger(__name__)

APPLICATION_NAME = "parley-read"
# A node that answers no poll for this long is taken for gone (its socket may never say so).
POLL_TIMEOUT = 10.0


class NodeReader:
    """The reader of one node: its connection (kept, re-opened after a loss) and cursor."""

    def __init__(
        self,
        node: Node,
        *,
        coordinator_dsn: str,
        deliver: Callable[[Found], None],
        send_wake: Callable[[], bool],
        on_catch_up: Callable[[], None],
        on_missing_shard: Callable[[], None],
        retry_seconds: float,
    ) -> None:
        self.node = node
        self.coordinator_dsn = coordinator_dsn
        self.reader = Reader(deliver)
        self.reader.send_wake = send_wake
        self.reader.statement = poll_statement(node.shards)
        self.reader.poll_timeout = POLL_TIMEOUT
        self.on_catch_up = on_catch_up
        self.on_missing_shard = on_missing_shard
        self.retry_seconds = retry_seconds
        self.connected = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task = asyncio.create_task(self._run())

    def place(self, node: Node) -> None:
        """The node's shards changed (moved in or out): poll the ones there now."""
        self.node = node
        self.reader.statement = poll_statement(node.shards)

    async def _run(self) -> None:
        first = True
        while True:
            conn: asyncpg.Connection | None = None
            try:
                conn = await asyncpg.connect(
                    self.node.dsn(self.coordinator_dsn),
                    server_settings={**SERVER_SETTINGS, "application_name": APPLICATION_NAME},
                )
                async with self._lock:
                    await self.reader.start(conn)
                self.connected.set()
                if not first:
                    self.reader.counters.reconnects += 1
                    log.info("node %s:%s is back; catching up", self.node.host, self.node.port)
                    self.on_catch_up()
                first = False
                await self.reader.run(conn, self._lock)
            except asyncio.CancelledError:
                raise
            except asyncpg.UndefinedTableError:
                # A shard moved away since the placements were read: read them again now.
                log.info("a shard left node %s:%s", self.node.host, self.node.port)
                self.on_missing_shard()
            except Exception:
                log.warning(
                    "reading node %s:%s failed; retrying",
                    self.node.host,
                    self.node.port,
                    exc_info=True,
                )
            finally:
                self.connected.clear()
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.terminate()
            first = False
            await asyncio.sleep(self.retry_seconds)

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class NodeReaders:
    """Every node's reader, kept in step with the cluster's placements."""

    def __init__(
        self,
        *,
        coordinator_dsn: str,
        deliver: Callable[[Found], None],
        send_wake: Callable[[], bool],
        on_catch_up: Callable[[], None],
        on_missing_shard: Callable[[], None],
        retry_seconds: float = 1.0,
    ) -> None:
        self.coordinator_dsn = coordinator_dsn
        self.deliver = deliver
        self.send_wake = send_wake
        self.on_catch_up = on_catch_up
        self.on_missing_shard = on_missing_shard
        self.retry_seconds = retry_seconds
        self.readers: dict[int, NodeReader] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def sync(self, nodes: dict[int, Node]) -> bool:
        """Readers for exactly these nodes, polling their shards; True when shards moved or
        a node went (what readers missed meanwhile must be caught up on)."""
        had_readers, moved = bool(self.readers), False
        for group in list(self.readers):
            if group not in nodes:
                gone = asyncio.create_task(self.readers.pop(group).stop())
                self._stopping.add(gone)
                gone.add_done_callback(self._stopping.discard)
                moved = True
        for group, node in nodes.items():
            current = self.readers.get(group)
            if current is None:
                self.readers[group] = NodeReader(
                    node,
                    coordinator_dsn=self.coordinator_dsn,
                    deliver=self.deliver,
                    send_wake=self.send_wake,
                    on_catch_up=self.on_catch_up,
                    on_missing_shard=self.on_missing_shard,
                    retry_seconds=self.retry_seconds,
                )
                moved = moved or had_readers  # a node joined: shards may move to it
            elif current.node != node:
                current.place(node)
                moved = True
        return moved

    def nudge(self) -> None:
        for each in self.readers.values():
            each.reader.nudge()

    def woken(self) -> None:
        for each in self.readers.values():
            each.reader.woken()

    @property
    def counters(self) -> Counters:
        """Every node's counters added up."""
        total = Counters()
        for each in self.readers.values():
            c = each.reader.counters
            total.polls += c.polls
            total.found += c.found
            total.wakes_sent += c.wakes_sent
            total.reconnects += c.reconnects
        return total

    async def stop(self) -> None:
        readers, self.readers = list(self.readers.values()), {}
        for each in readers:
            await each.stop()
