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

Live events go to the database only while another instance is there to read them: alone,
an instance would pay a NOTIFY round trip per reply (and PostgreSQL its fan-out) to send
them to itself. Instances find each other by their LISTEN connections' application_name,
and a new one says hello on connecting, so the others start forwarding at once.
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

from parley.db import asyncpg_dsn
from parley.realtime.hub import Hub
from parley.realtime.reader import Found, Reader
from parley.realtime.waits import PUSHES, Waits

log = logging.getLogger(__name__)

LIVE_CHANNEL = "parley_live"
APPLICATION_NAME = "parley-listen"
_COUNT_INSTANCES = "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1"
MAX_PAYLOAD = 7900  # PostgreSQL's NOTIFY limit is 8000 bytes


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

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._send())]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                await self.connected.wait()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
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
        """Deliver here at once, and to the other instances through the database."""
        self.hub.publish_live(conversation_id, event, data)
        if not self.peers:
            return
        payload = json.dumps(
            {
                "instance": self.instance,
                "conversation_id": conversation_id,
                "event": event,
                "data": data,
            }
        )
        if len(payload.encode()) > MAX_PAYLOAD:
            # Too big for NOTIFY (a large tool result): other instances get the bare event.
            slim = {k: v for k, v in data.items() if k in ("call_id", "tool")}
            payload = json.dumps(
                {
                    "instance": self.instance,
                    "conversation_id": conversation_id,
                    "event": event,
                    "data": slim,
                }
            )
        self._outbox.append(payload)
        self._outbox_ready.set()

    def forward_stop(self, conversation_id: int) -> None:
        """Ask every other instance to stop the turn it runs in this conversation."""
        self._outbox.append(
            json.dumps({"instance": self.instance, "conversation_id": conversation_id, "stop": 1})
        )
        self._outbox_ready.set()

    async def _listen(self) -> None:
        first = True
        while True:
            closed = asyncio.Event()
            reading: asyncio.Task[None] | None = None
            try:
                conn = await asyncpg.connect(
                    self.dsn, server_settings={"application_name": APPLICATION_NAME}
                )
                conn.add_termination_listener(lambda _c, closed=closed: closed.set())
                await conn.add_listener(LIVE_CHANNEL, self._on_live)
                for channel, handler in self.channels.items():
                    await conn.add_listener(
                        channel, lambda _c, _p, _ch, payload, handler=handler: handler(payload)
                    )
                await self._count_peers(conn)
                hello = json.dumps([{"instance": self.instance, "hello": True}])
                await conn.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, hello)
                await self.reader.start(conn)
                self._conn = conn
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
                reading = asyncio.create_task(self.reader.run(conn, self._lock))
                reading.add_done_callback(_setter(closed))
                while not closed.is_set():
                    # A dead peer does not always close the socket: probe now and then.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(5):  # not wait_for: see Reader.run
                            await closed.wait()
                    if not closed.is_set():
                        try:
                            async with self._lock:
                                await asyncio.wait_for(self._count_peers(conn), timeout=5)
                        except Exception:
                            closed.set()
                if reading.done() and not reading.cancelled() and reading.exception():
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
                        await conn.execute(
                            "SELECT pg_notify($1, $2)", LIVE_CHANNEL, f"[{','.join(batch)}]"
                        )
                except Exception:
                    log.debug("dropped live events", exc_info=True)

    async def _count_peers(self, conn: asyncpg.Connection) -> None:
        """Also the probe of the connection: a dead one fails here."""
        self.peers = await conn.fetchval(_COUNT_INSTANCES, APPLICATION_NAME) > 1

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
        self._outbox.append(json.dumps({"instance": self.instance, "wake": 1}))
        self._outbox_ready.set()
        return True

    def _on_live(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        if self.instance in payload[:64]:
            return  # our own batch, already delivered here
        self.peers = True  # another instance wrote it: forward ours from now on
        try:
            for note in json.loads(payload):
                if note["instance"] == self.instance:
                    continue
                if "wake" in note:
                    self.reader.woken()
                    continue
                if "conversation_id" not in note:
                    continue
                if "stop" in note:
                    self.on_stop(int(note["conversation_id"]))
                else:
                    self.hub.publish_live(int(note["conversation_id"]), note["event"], note["data"])
        except (ValueError, KeyError, TypeError):
            log.warning("bad live payload: %r", payload)


def _setter(event: asyncio.Event) -> Callable[[asyncio.Task[None]], None]:
    def done(_task: asyncio.Task[None]) -> None:
        event.set()

    return done
