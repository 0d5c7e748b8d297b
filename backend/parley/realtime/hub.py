"""The per-instance hub: who is watching which conversation, and what is being written now.

Stored messages are the source of truth. A notification only says "conversation C has
something new"; one pump per conversation then reads the rows after the oldest cursor of
its subscribers and hands each subscriber the rows past its own cursor. A missed or
duplicated notification therefore costs at most a query, never a message.

Live events (text deltas, tool calls of a reply being written) are not stored. The hub
keeps the current reply's text so far, so a subscriber who joins mid-reply starts with it.
When the reply ends its watchers get `reply_end` with the id of the message it was stored as
(null if none): the stored copy comes by the pump, after live events that may already belong
to the next reply (a work session's next step), so this is how a client tells them apart.

A reply written on another instance arrives only while someone here watches (the notifier
asks for it when the first subscriber comes), so its events carry their place in the reply:
which reply, and where in it (a delta's text offset, a tool event's index). The writer
replays what it has when asked; an event already had is skipped and one past a gap waits
for that replay, so a subscriber joining mid-reply gets every part once, in order.

What a subscriber holds is bounded (`budget`, bytes of queued frames): one whose client is
not reading (or not as fast as messages come) stops being handed stored messages once its
queue is full, and is handed the rest from its cursor as it drains it, so a stream that
never reads holds a budget's worth, not every message since. A live event, which is not
stored and cannot be handed later, drops a subscriber that is full or behind instead
(`drop`: its stream ends; the client reconnects with Last-Event-ID and loses nothing).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sse_starlette import ServerSentEvent

from parley import events
from parley.db import Database, retry_on_reconnect
from parley.messages.store import messages_after
from parley.schemas import message_json

log = logging.getLogger(__name__)

# (owner, conversation, after id) → the stored messages after it: the owner's id sends the
# read to the node of their rows on a Citus cluster.
Fetch = Callable[[str, int, int], Awaitable[list[dict[str, Any]]]]
PAGE = 500


Item = tuple[str, str, int | None]  # (event, JSON data, message id)


class Frame:
    """One event for every subscriber it is handed to: its SSE bytes are encoded once, by
    the first stream that sends it, and shared by the rest (1,000 watchers of a
    conversation cost one encoding per message, not 1,000)."""

    __slots__ = ("_chunk", "_encoded", "data", "event", "message_id")

    def __init__(self, event: str, data: str, message_id: int | None = None) -> None:
        self.event = event
        self.data = data
        self.message_id = message_id
        self._encoded: bytes | None = None
        self._chunk: bytes | None = None

    def encoded(self) -> bytes:
        if self._encoded is None:
            self._encoded = ServerSentEvent(
                data=self.data,
                event=self.event,
                id=str(self.message_id) if self.message_id else None,
            ).encode()
        return self._encoded

    def chunk(self) -> bytes:
        """The encoded frame as one HTTP/1.1 chunk (`Transfer-Encoding: chunked`), framed
        once for every stream written to directly (`realtime.stream`)."""
        if self._chunk is None:
            encoded = self.encoded()
            self._chunk = b"%x\r\n%b\r\n" % (len(encoded), encoded)
        return self._chunk


Sink = Callable[[Frame], "Stalled | None"]


class Stalled:
    """A write the socket could not take at once: the send coroutine, suspended on the
    future it yielded, for the stream's own task to finish (see `realtime.stream`)."""

    __slots__ = ("coro", "future")

    def __init__(self, coro: Any, future: Any) -> None:
        self.coro = coro
        self.future = future


class Dropped(Exception):
    """The subscriber was dropped (`Subscriber.drop`): its stream ends."""


class Subscriber:
    """One open stream. Deliberately small (a deque and, while waiting, one future): a hub
    holds thousands of idle ones.

    While its stream is idle, a subscriber may have a `sink`: frames are then written to the
    connection by the hub's own loop, in one pass over the subscribers, instead of waking
    each stream's task to write its copy (with 1,000 watchers that wake-up and the layers of
    `send` it goes through were most of the cost of a message). A write the socket cannot
    take at once comes back `Stalled`; the subscriber then queues like any other until its
    stream has finished that write, so frames never pass each other."""

    __slots__ = (
        "_items",
        "_waiter",
        "behind",
        "budget",
        "conversation_id",
        "last_id",
        "live",
        "on_drop",
        "on_room",
        "queued",
        "sink",
        "stalled",
        "user_id",
    )

    def __init__(
        self, conversation_id: int, last_id: int, user_id: str, budget: int | None = None
    ) -> None:
        self.conversation_id = conversation_id
        self.user_id = user_id  # the conversation's owner (whoever follows it)
        self.last_id = last_id
        self.live = False  # receives live events only once it has the in-flight snapshot
        self._items: deque[Frame] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self.sink: Sink | None = None
        self.stalled: Stalled | BaseException | None = None
        self.budget = budget  # bytes of queued frames it may hold (None: no bound)
        self.queued = 0
        self.behind = False  # stored messages past `last_id` wait for room in its queue
        self.on_room: Callable[[], None] = lambda: None  # it drained: hand it what waits
        self.on_drop: Callable[[], object] = lambda: None  # end its connection

    def put(self, event: str, data: str, message_id: int | None = None) -> None:
        self.put_frame(Frame(event, data, message_id))

    def put_frame(self, frame: Frame) -> None:
        sink = self.sink
        if sink is not None:
            try:
                stalled = sink(frame)
            except BaseException as error:  # the connection is gone: its stream ends
                self.sink, self.stalled = None, error
                self._wake()
                return
            if stalled is not None:
                self.sink, self.stalled = None, stalled
                self._wake()
            return
        self._items.append(frame)
        self.queued += len(frame.data)
        self._wake()

    @property
    def full(self) -> bool:
        return self.budget is not None and self.queued >= self.budget

    def drop(self) -> None:
        """Let go of everything queued and end the stream (its connection too): what it
        missed it gets again by reconnecting from its last id."""
        self._items.clear()
        self.queued = 0
        self.sink, self.stalled = None, Dropped()
        self.on_drop()
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def pop(self) -> Frame | None:
        """The next queued frame, if one is waiting (no suspension, no timer)."""
        if not self._items:
            return None
        frame = self._items.popleft()
        self.queued -= len(frame.data)
        if self.behind and not self._items:
            self.behind = False
            self.on_room()
        return frame

    async def wait(self) -> None:
        """Until a frame is queued or a direct write stalled."""
        while not self._items and self.stalled is None:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    async def next_frame(self) -> Frame:
        while (frame := self.pop()) is None:
            await self.wait()
        return frame

    async def get(self) -> Item:
        frame = await self.next_frame()
        return frame.event, frame.data, frame.message_id


@dataclass
class InFlight:
    reply: str  # which reply this is: a number here, "instance/number" for another's
    remote: bool = False  # written on another instance (known only while watched here)
    # The text so far as its deltas: appending to one string would copy it on every delta,
    # quadratic in the length of a long reply. Joined only when someone joins mid-reply.
    text: list[str] = field(default_factory=list)
    length: int = 0  # characters in `text`: the offset of the next delta
    tools: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Place:
    """Where a live event sits in its reply, for the instances it is forwarded to."""

    reply: str
    at: int  # a delta's text offset, a tool event's index


# What another instance needs to catch up on a reply: (event, JSON data, its place).
Replay = list[tuple[str, str, Place]]


class Hub:
    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._subscribers: dict[int, set[Subscriber]] = {}
        self._inflight: dict[int, InFlight] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._dirty: set[int] = set()
        self._pumps: dict[int, asyncio.Task[None]] = {}
        self._replies = itertools.count(1)
        # Told when this process starts (True) or stops watching a conversation: the first
        # subscriber came, the last one left. Set by the notifier, which then asks the other
        # instances for the conversation's live events, or tells them to stop sending them.
        self.on_watch: Callable[[int, bool], None] = lambda _conversation_id, _on: None

    async def subscribe(
        self, conversation_id: int, after: int, *, user_id: str, budget: int | None = None
    ) -> Subscriber:
        """Register, catch up on stored messages after `after`, then take the live state.
        `user_id` owns the conversation (the caller checked it). `budget`: the bytes of
        frames it may hold queued (see the module's docstring)."""
        sub = Subscriber(
            conversation_id=conversation_id, last_id=after, user_id=user_id, budget=budget
        )
        sub.on_room = lambda: self.message_stored(conversation_id)
        subs = self._subscribers.setdefault(conversation_id, set())
        subs.add(sub)
        if len(subs) == 1:
            self.on_watch(conversation_id, True)
        try:
            await self._pump_now(conversation_id)
        except BaseException:
            self.unsubscribe(sub)
            raise
        return sub

    def _go_live(self, sub: Subscriber) -> None:
        """A subscriber that has every stored message takes the reply being written so far,
        then its live events: no await between the two, so nothing falls in between."""
        current = self._inflight.get(sub.conversation_id)
        if current is not None:
            for event, data in current.tools:
                sub.put(event, data)
            if current.text:
                sub.put("delta", json.dumps({"text": "".join(current.text)}))
        sub.live = True

    def drop(self, sub: Subscriber) -> None:
        """Stop following for `sub` and end its stream (a client too slow to keep up)."""
        self.unsubscribe(sub)
        sub.drop()

    def watchers(self, conversation_id: int) -> int:
        """How many in this process follow the conversation now (what a test waits on
        before writing what a waiter must see arrive, rather than on a fixed sleep)."""
        return len(self._subscribers.get(conversation_id, ()))

    def text_so_far(self, conversation_id: int) -> str:
        """The reply being written now, as far as it is out ("" when none is)."""
        current = self._inflight.get(conversation_id)
        return "".join(current.text) if current is not None else ""

    def unsubscribe(self, sub: Subscriber) -> None:
        subs = self._subscribers.get(sub.conversation_id)
        if subs is not None and sub in subs:
            subs.discard(sub)
            if not subs:
                del self._subscribers[sub.conversation_id]
                current = self._inflight.get(sub.conversation_id)
                if current is not None and current.remote:
                    # No longer sent here: its end would never arrive to clear it.
                    del self._inflight[sub.conversation_id]
                self.on_watch(sub.conversation_id, False)

    def watching(self) -> list[int]:
        """The conversations someone here watches (announced again to a new instance)."""
        return list(self._subscribers)

    # -- stored messages -------------------------------------------------------------

    def message_stored(self, conversation_id: int) -> None:
        """A message was committed (here or on another instance): wake the pump."""
        if conversation_id not in self._subscribers:
            return
        self._dirty.add(conversation_id)
        running = self._pumps.get(conversation_id)
        # A pump whose loop has ended but whose done-callback has not run yet is still in
        # `_pumps`: it would never see this wake, so a finished one counts as none.
        if running is None or running.done():
            task = asyncio.create_task(self._pump_loop(conversation_id))
            self._pumps[conversation_id] = task
            task.add_done_callback(lambda t: self._forget_pump(conversation_id, t))

    def _forget_pump(self, conversation_id: int, task: asyncio.Task[None]) -> None:
        if self._pumps.get(conversation_id) is task:
            del self._pumps[conversation_id]

    def wake_all(self) -> None:
        """After a lost notification connection: anything may have been missed."""
        for conversation_id in list(self._subscribers):
            self.message_stored(conversation_id)

    async def _pump_loop(self, conversation_id: int) -> None:
        while conversation_id in self._dirty:
            self._dirty.discard(conversation_id)
            try:
                await self._pump_now(conversation_id)
            except Exception:  # the database is away: the listener's reconnect wakes us again
                log.warning("could not read conversation %s", conversation_id, exc_info=True)
                return

    async def _pump_now(self, conversation_id: int) -> None:
        """Hand each subscriber the stored messages past its cursor, as far as its queue has
        room (a full one is `behind`, and asks again when it drains), then switch on live
        delivery for those that have them all. A subscriber that came during a read is not
        handed that read's rows: they start past its cursor; its own pump catches it up."""
        lock = self._locks.setdefault(conversation_id, asyncio.Lock())
        async with lock:
            present: list[Subscriber] = []
            while True:
                present = list(self._subscribers.get(conversation_id, ()))
                taking = [s for s in present if not s.full]
                if not taking:
                    return  # every one is full: each asks again when it has room
                for sub in taking:
                    sub.behind = False
                floor = min(s.last_id for s in taking)
                owner = taking[0].user_id
                rows = await self._fetch(owner, conversation_id, floor)
                still = self._subscribers.get(conversation_id, set())
                present = [s for s in present if s in still]
                for row in rows:
                    frame = Frame("message", json.dumps(row), row["id"])
                    for sub in present:
                        if row["id"] <= sub.last_id:
                            continue
                        if sub.full:
                            sub.behind = True
                            continue
                        sub.put_frame(frame)
                        sub.last_id = row["id"]
                if len(rows) < PAGE:
                    break
            for sub in present:
                if not sub.live and not sub.behind:
                    self._go_live(sub)

    # -- live events ---------------------------------------------------------------

    def publish_live(self, conversation_id: int, event: str, data: dict[str, Any]) -> Place | None:
        """A delta, tool call or tool result of a reply written here; `turn_end` ends it.
        Returns the event's place in the reply, for forwarding it."""
        if event == events.TURN_END:
            self._end(conversation_id, data.get("message_id"))
            return None
        current = self._inflight.get(conversation_id)
        if current is None or current.remote:
            if current is not None:
                self._end(conversation_id, None)  # this instance's reply takes the stream over
            current = self._inflight[conversation_id] = InFlight(reply=str(next(self._replies)))
        subs = self._subscribers.get(conversation_id)
        if event == events.DELTA:
            text = data.get("text", "")
            place = Place(current.reply, current.length)
            current.text.append(text)
            current.length += len(text)
            if not subs:
                return place  # nobody watching here: no encoding on the turn's hot path
            encoded = json.dumps(data)
        else:
            place = Place(current.reply, len(current.tools))
            encoded = json.dumps(data)
            current.tools.append((event, encoded))
        self._to_live(subs, Frame(event, encoded))
        return place

    def publish_remote(
        self, conversation_id: int, event: str, data: dict[str, Any], place: Place | None
    ) -> None:
        """A live event of a reply written on another instance (`place.reply` names the
        instance too), applied at its place: once, in order, whatever arrives twice or early.
        An event without a place (from an older instance) is taken as the next one."""
        current = self._inflight.get(conversation_id)
        if event == events.TURN_END:
            if current is not None and current.remote:
                self._end(conversation_id, data.get("message_id"))
            return
        if current is not None and not current.remote:
            return  # a reply is being written here: this instance holds the turn
        reply = place.reply if place is not None else current.reply if current else "?"
        if current is None or current.reply != reply:
            if place is not None and place.at > 0:
                return  # joined mid-reply: the writer's replay brings the start
            if current is not None:
                self._end(conversation_id, None)  # its end was lost: the next reply began
            current = self._inflight[conversation_id] = InFlight(reply=reply, remote=True)
        subs = self._subscribers.get(conversation_id)
        if event == events.DELTA:
            text = data.get("text", "")
            at = place.at if place is not None else current.length
            if at > current.length:
                return  # a gap: the replay brings it
            text = text[current.length - at :]
            if not text:
                return  # already had
            current.text.append(text)
            current.length += len(text)
            encoded = json.dumps({"text": text})
        else:
            if place is not None and place.at != len(current.tools):
                return  # had already, or past a gap
            encoded = json.dumps(data)
            current.tools.append((event, encoded))
        if subs:
            self._to_live(subs, Frame(event, encoded))

    def _end(self, conversation_id: int, message_id: object) -> None:
        """The reply being written is over. Its watchers are told which stored message it
        became (`reply_end`), so they hand its text over to that message when it arrives
        (stored messages come by the pump, a moment later than live events) and take what
        follows as a new reply. Nothing is sent when no reply was in flight."""
        if self._inflight.pop(conversation_id, None) is None:
            return
        if subs := self._subscribers.get(conversation_id):
            stored = message_id if isinstance(message_id, int) else None
            self._to_live(subs, Frame(events.REPLY_END, json.dumps({"message_id": stored})))

    def replay(self, conversation_id: int) -> Replay:
        """The reply being written here, as the events another instance needs to catch up
        (its watcher came mid-reply): the tool events, then the text so far as one delta."""
        current = self._inflight.get(conversation_id)
        if current is None or current.remote:
            return []
        out: Replay = [
            (event, encoded, Place(current.reply, index))
            for index, (event, encoded) in enumerate(current.tools)
        ]
        if current.text:
            text = json.dumps({"text": "".join(current.text)})
            out.append((events.DELTA, text, Place(current.reply, 0)))
        return out

    def _to_live(self, subs: set[Subscriber] | None, frame: Frame) -> None:
        for sub in list(subs or ()):
            if not sub.live:
                continue
            if sub.full or sub.behind:  # it cannot take this now, nor be handed it later
                self.drop(sub)
            else:
                sub.put_frame(frame)


def message_fetcher(db: Database) -> Fetch:
    @retry_on_reconnect
    async def fetch(user_id: str, conversation_id: int, after: int) -> list[dict[str, Any]]:
        async with db.connection() as conn:
            rows = await messages_after(
                conn, user_id=user_id, conversation_id=conversation_id, after=after, limit=PAGE
            )
        return [message_json(m) for m in rows]

    return fetch
