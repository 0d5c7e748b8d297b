"""The instance's single database connection for realtime: it LISTENs, and the reader
polls on it; and the sender of live events to other instances.

Stored messages and person events are found by the reader (`realtime.reader`), which polls
this connection: writers send no NOTIFY. What is announced here is only what is never
stored: live events of a reply being written (so a subscriber on another instance sees the
reply grow too), requests to stop a turn another instance runs, and the readers' wake-ups
(one per `Reader.wake_gap` at most, never one per write). When the connection drops (a
database restart) it is re-opened after a fixed delay (`retry_seconds`, tried again and
again); the reader resumes from its cursor and every watched conversation and wait is
re-read from its own: nothing is skipped.

Live events go to the database only for conversations someone on another instance
watches: each instance announces the conversations it starts and stops watching (and all
of them to a new instance, which says hello on connecting), and a writer forwards a reply's
events only while another instance watches it. Asked mid-reply, the writer first replays
what it has; every forwarded event carries its place in the reply, so the watcher's hub
takes each part once (`Hub.publish_remote`). Unwatched replies cost no NOTIFY at all, alone
or beside other instances. Instances find each other by their LISTEN connections'
application_name.

On a Citus cluster this connection is the coordinator's (live events, stops, wake-ups and
the peers' count go through it, as on one PostgreSQL), and the reader does not poll it: one
reader per node holding people's rows does (`realtime.node_readers`), all delivering here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any

import asyncpg

from parley import events
from parley.cluster.nodes import Node, placed
from parley.db import SERVER_SETTINGS, asyncpg_dsn
from parley.realtime import store
from parley.realtime.hub import Hub, Place
from parley.realtime.node_readers import NodeReaders
from parley.realtime.reader import Counters, Found, Reader
from parley.realtime.waits import PUSHES, Waits

log = logging.getLogger(__name__)

LIVE_CHANNEL = "parley_live"
APPLICATION_NAME = "parley-listen"
MAX_PAYLOAD = 7900  # PostgreSQL's NOTIFY limit is 8000 bytes
WATCH_BATCH = 500  # conversation ids per announcement note
# Text per forwarded piece of a long delta: within NOTIFY's 8 kB however it is escaped (JSON
# takes up to 12 bytes for one character: a surrogate pair of \uXXXX escapes).
PIECE_CHARS = 600


class Notifier:
    def __init__(
        self,
        *,
        database_url: str,
        hub: Hub,
        waits: Waits | None = None,
        retry_seconds: float = 1.0,
        channels: dict[str, Callable[[str], None]] | None = None,
        on_reconnect: Callable[[], None] | None = None,
        reader: Reader | None = None,
    ) -> None:
        """`waits` are woken by the person events the reader finds; `channels`: more
        channels to listen on, each with the handler of its payloads; `on_reconnect` runs
        after a lost connection is back (anything may have been missed)."""
        # Called with a conversation id when another instance asks to stop its turn.
        self.on_stop: Callable[[int], object] = lambda _conversation_id: None
        self.dsn = asyncpg_dsn(database_url)
        self.hub = hub
        self.waits = waits
        self.reader = reader or Reader(self._deliver)
        self.reader.deliver = self._deliver
        self.reader.send_wake = self._send_wake
        self.hub.on_watch = self._on_watch
        # Conversations watched on other instances, and by which (their instance ids).
        self.watched_elsewhere: dict[int, set[str]] = {}
        self.channels = channels or {}
        self.on_reconnect = on_reconnect
        self.instance = uuid.uuid4().hex
        self.retry_seconds = retry_seconds
        self.connected = asyncio.Event()
        self._conn: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()  # one statement at a time on the connection
        self._outbox: deque[str] = deque(maxlen=10_000)  # live events are best effort
        self._outbox_ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        # Another instance may be watching: forward live events. Wrongly True costs only
        # the NOTIFYs; it is never wrongly False for longer than a hello's trip.
        self.peers = True
        # On a Citus cluster: the readers of its nodes (None on one PostgreSQL).
        self.nodes: NodeReaders | None = None
        self._replace = asyncio.Event()  # a shard left a node: read the placements now

    async def start(self, *, on_stop: Callable[[int], object] | None = None) -> None:
        """`on_stop`: called with a conversation id when another instance asks to stop its
        turn (the turn runner: made from this notifier's methods, so handed in here)."""
        if on_stop is not None:
            self.on_stop = on_stop
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._send())]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                await self.connected.wait()

    def nudge(self) -> None:
        """Something may have been written by this process: its reader(s) poll soon."""
        if self.nodes is not None:
            self.nodes.nudge()
        else:
            self.reader.nudge()

    @property
    def counters(self) -> Counters:
        """What the reader did (every node's, added up, on a cluster)."""
        return self.nodes.counters if self.nodes is not None else self.reader.counters

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.nodes is not None:
            await self.nodes.stop()
        if self._conn is not None and not self._conn.is_closed():
            # Dropped, not closed politely: the reader may have been stopped mid-poll, and
            # nothing on this connection needs finishing.
            self._conn.terminate()

    async def listen(self, channel: str, handler: Callable[[str], None]) -> None:
        """Hear `channel` on this instance's one connection, now and after every reconnect
        (for a component with notes of its own, instead of a connection of its own)."""
        self.channels[channel] = handler
        conn = self._conn
        if conn is not None and not conn.is_closed():
            async with self._lock:
                await conn.add_listener(
                    channel, lambda _c, _p, _ch, payload, handler=handler: handler(payload)
                )

    def publish_live(self, conversation_id: int, event: str, data: dict[str, Any]) -> None:
        """Deliver here at once, and to the instances that watch the conversation."""
        place = self.hub.publish_live(conversation_id, event, data)
        if self.peers and conversation_id in self.watched_elsewhere:
            self._forward(conversation_id, event, json.dumps(data), place)

    def _forward(self, conversation_id: int, event: str, data: str, place: Place | None) -> None:
        where = "" if place is None else f',"reply":"{place.reply}","at":{place.at}'
        head = f'{{"instance":"{self.instance}","conversation_id":{conversation_id}'
        payload = f'{head},"event":{json.dumps(event)}{where},"data":{data}}}'
        if len(payload.encode()) > MAX_PAYLOAD:
            text = json.loads(data).get("text") if event == events.DELTA else None
            if isinstance(text, str) and place is not None and len(text) > PIECE_CHARS:
                for start in range(0, len(text), PIECE_CHARS):  # a long delta in pieces
                    piece = json.dumps({"text": text[start : start + PIECE_CHARS]})
                    self._forward(
                        conversation_id, event, piece, Place(place.reply, place.at + start)
                    )
                return
            # Too big for NOTIFY (a large tool result): other instances get the bare event.
            bare = {k: v for k, v in json.loads(data).items() if k in ("call_id", "tool")}
            payload = f'{head},"event":{json.dumps(event)}{where},"data":{json.dumps(bare)}}}'
        self._queue(payload)

    def _queue(self, note: str) -> None:
        self._outbox.append(note)
        self._outbox_ready.set()

    def _on_watch(self, conversation_id: int, on: bool) -> None:
        """The hub's first watcher of a conversation came, or its last one left."""
        if self.peers:
            self._announce([conversation_id], on=on)

    def _announce(self, conversation_ids: list[int], *, on: bool = True) -> None:
        key = "watch" if on else "unwatch"
        for start in range(0, len(conversation_ids), WATCH_BATCH):
            ids = conversation_ids[start : start + WATCH_BATCH]
            self._queue(json.dumps({"instance": self.instance, key: ids}))

    def _watched_by(self, instance: str, conversation_ids: list[int], *, on: bool) -> None:
        """Another instance's announcement. A new watcher of a reply being written here
        gets what the reply has so far first (in order before anything sent after it)."""
        for conversation_id in conversation_ids:
            if on:
                self.watched_elsewhere.setdefault(conversation_id, set()).add(instance)
                for event, data, place in self.hub.replay(conversation_id):
                    self._forward(conversation_id, event, data, place)
            elif (watchers := self.watched_elsewhere.get(conversation_id)) is not None:
                watchers.discard(instance)
                if not watchers:
                    del self.watched_elsewhere[conversation_id]

    def forward_stop(self, conversation_id: int) -> None:
        """Ask every other instance to stop the turn it runs in this conversation."""
        self._queue(
            json.dumps({"instance": self.instance, "conversation_id": conversation_id, "stop": 1})
        )

    async def _listen(self) -> None:
        first = True
        while True:
            closed = asyncio.Event()
            reading: asyncio.Task[None] | None = None
            try:
                conn = await asyncpg.connect(
                    self.dsn,
                    server_settings={**SERVER_SETTINGS, "application_name": APPLICATION_NAME},
                )
                conn.add_termination_listener(lambda _c, closed=closed: closed.set())
                await conn.add_listener(LIVE_CHANNEL, self._on_live)
                for channel, handler in self.channels.items():
                    await conn.add_listener(
                        channel, lambda _c, _p, _ch, payload, handler=handler: handler(payload)
                    )
                await self._count_peers(conn)
                hello = json.dumps([{"instance": self.instance, "hello": True}])
                await store.notify(conn, channel=LIVE_CHANNEL, payload=hello)
                cluster = await placed(conn)
                if cluster is None:
                    await self.reader.start(conn)
                else:
                    self._follow_nodes(cluster)
                self._conn = conn
                if self.peers:  # what this instance watches, anew (a restarted peer forgot)
                    self._announce(self.hub.watching())
                self.connected.set()
                if not first:
                    self.reader.counters.reconnects += 1
                    log.info("notification connection restored; re-reading watched conversations")
                    self.hub.wake_all()
                    if self.waits is not None:
                        self.waits.wake_all()
                    if self.on_reconnect is not None:
                        self.on_reconnect()
                first = False
                if cluster is None:
                    reading = asyncio.create_task(self.reader.run(conn, self._lock))
                    reading.add_done_callback(_setter(closed))
                while not closed.is_set():
                    # A dead peer does not always close the socket: probe now and then (on
                    # a cluster, also for nodes added or shards moved).
                    self._replace.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(5):  # not wait_for: see Reader.run
                            await _first(closed, self._replace)
                    if not closed.is_set():
                        try:
                            async with self._lock:
                                await asyncio.wait_for(self._count_peers(conn), timeout=5)
                                if cluster is not None:
                                    found = await asyncio.wait_for(placed(conn), timeout=5)
                                    self._follow_nodes(found or {})
                        except Exception:
                            closed.set()
                if (
                    reading is not None
                    and reading.done()
                    and not reading.cancelled()
                    and reading.exception()
                ):
                    log.warning("the reader lost its connection", exc_info=reading.exception())
                with contextlib.suppress(Exception):
                    conn.terminate()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("notification connection failed; retrying", exc_info=True)
            finally:
                if reading is not None and not reading.done():
                    reading.cancel()
                    with contextlib.suppress(BaseException):
                        await reading
            self.connected.clear()
            self._conn = None
            await asyncio.sleep(self.retry_seconds)

    async def _send(self) -> None:
        """Sends what has queued up as one NOTIFY (a JSON array, within the 8 kB limit): a
        reply's deltas usually leave together, at one round trip for the lot."""
        while True:
            await self._outbox_ready.wait()
            self._outbox_ready.clear()
            while self._outbox:
                batch, size = [self._outbox.popleft()], 0
                size = len(batch[0].encode()) + 2
                while self._outbox and size + len(self._outbox[0].encode()) + 1 <= MAX_PAYLOAD:
                    item = self._outbox.popleft()
                    batch.append(item)
                    size += len(item.encode()) + 1
                conn = self._conn
                if conn is None or conn.is_closed():
                    continue
                try:
                    async with self._lock:
                        await store.notify(
                            conn, channel=LIVE_CHANNEL, payload=f"[{','.join(batch)}]"
                        )
                except Exception:
                    log.debug("dropped live events", exc_info=True)

    async def _count_peers(self, conn: asyncpg.Connection) -> None:
        """Also the probe of the connection: a dead one fails here."""
        self.peers = await store.listeners(conn, application_name=APPLICATION_NAME) > 1
        if not self.peers:
            self.watched_elsewhere.clear()  # their watchers went with them

    def _follow_nodes(self, nodes: dict[int, Node]) -> None:
        """A reader for each node of the cluster; a catch-up when shards moved."""
        if self.nodes is None:
            self.nodes = NodeReaders(
                coordinator_dsn=self.dsn,
                deliver=self._deliver,
                send_wake=self._send_wake,
                on_catch_up=self._catch_up,
                on_missing_shard=self._replace.set,
                retry_seconds=self.retry_seconds,
            )
        if self.nodes.sync(nodes):
            log.info("the cluster's shards moved; re-reading what is watched")
            self._catch_up()

    def _catch_up(self) -> None:
        """Anything may have been missed: every watcher and wait reads from its own cursor."""
        self.hub.wake_all()
        if self.waits is not None:
            self.waits.wake_all()

    def _deliver(self, found: Found) -> None:
        for conversation_id in found.conversations:
            self.hub.message_stored(conversation_id)
        if self.waits is not None:
            for user_id, kind, ref in found.events:
                self.waits.on_event(user_id, kind, ref)
            if found.pushes:
                self.waits.wake(PUSHES)

    def _send_wake(self) -> bool:
        """The reader found rows written here: the other readers may be backing off."""
        if not self.peers:
            return False
        self._queue(json.dumps({"instance": self.instance, "wake": 1}))
        return True

    def _on_live(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        if self.instance in payload[:64]:
            return  # our own batch, already delivered here
        try:
            for note in json.loads(payload):
                instance = note["instance"]
                if instance == self.instance:
                    continue
                if not self.peers or "hello" in note:
                    # Another instance is there: tell it what is watched here.
                    self.peers = True
                    self._announce(self.hub.watching())
                if "wake" in note:
                    if self.nodes is not None:
                        self.nodes.woken()
                    else:
                        self.reader.woken()
                elif "watch" in note or "unwatch" in note:
                    on = "watch" in note
                    ids = [int(i) for i in note["watch" if on else "unwatch"]]
                    self._watched_by(instance, ids, on=on)
                elif "conversation_id" not in note:
                    continue
                elif "stop" in note:
                    self.on_stop(int(note["conversation_id"]))
                else:
                    place = (
                        Place(f"{instance}/{note['reply']}", int(note["at"]))
                        if "reply" in note
                        else None
                    )
                    self.hub.publish_remote(
                        int(note["conversation_id"]), note["event"], note["data"], place
                    )
        except (ValueError, KeyError, TypeError):
            log.warning("bad live payload: %r", payload)


async def _first(*events: asyncio.Event) -> None:
    """Until one of the events is set."""
    waiting = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for each in waiting:
            each.cancel()


def _setter(event: asyncio.Event) -> Callable[[asyncio.Task[None]], None]:
    def done(_task: asyncio.Task[None]) -> None:
        event.set()

    return done
