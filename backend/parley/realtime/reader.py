"""The instance's one reader of what was written: new messages, person events and pushes to
send, found by snapshot rather than announced by the writers.

Writers only append rows; each row carries the id of the transaction that wrote it (`xid`,
migration 0045). The reader's cursor is the PostgreSQL snapshot of its previous poll
(`xmin:xmax:xip`). A row is new since then exactly when its transaction had not finished
when that snapshot was taken, i.e. when its xid is ≥ the snapshot's `xmax` (not yet started)
or in its `xip` list (running). Every transaction below `xmin` had finished, so rows older
than the cursor's `xmin` are never looked at again, and the reader needs no other state.
Each poll reads those rows and takes the next snapshot in one statement, so nothing commits
between the two: each committed row is found once, by the first poll after its commit,
whatever the order of ids and commits (specs/realtime.md, "Why no row is skipped").

The reader only says which conversations and which people have something new; the hub and
the waits read the rows themselves by id, in id order (ids commit in order within a
conversation and within a person's log, under their advisory locks).

Polls are paced, never one per write: after a poll that found rows, the next comes
`min_gap` later at the soonest, and while every poll finds rows the gap doubles up to
`max_gap` (a busy database is read in larger batches, at a bounded number of polls a
second); idle, the interval doubles up to `max_interval`. A nudge (a
connection of this process's pool was released: something may have been written here) or a
wake-up from another instance's reader asks for a poll now, within the same pacing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import asyncpg

from parley.realtime import store
from parley.realtime.store import POLL

log = logging.getLogger(__name__)

Snapshot = tuple[int, int, list[int]]  # xmin, xmax, xip


@dataclass
class Counters:
    """What the reader did, for tests and the bench (wake-ups are bounded per second)."""

    polls: int = 0
    found: int = 0  # polls that found something
    wakes_sent: int = 0
    reconnects: int = 0


@dataclass
class Found:
    conversations: set[int] = field(default_factory=set)
    events: set[tuple[str, str, int]] = field(default_factory=set)  # user, kind, ref
    pushes: bool = False  # rows were added to the push outbox

    def __bool__(self) -> bool:
        return bool(self.conversations or self.events or self.pushes)


def parse_snapshot(value: object) -> Snapshot:
    """asyncpg gives a pg_snapshot as (xmin, xmax, xip); text as 'xmin:xmax:xip,xip'."""
    if isinstance(value, str):
        xmin, xmax, xip = value.split(":")
        return int(xmin), int(xmax), [int(x) for x in xip.split(",") if x]
    xmin, xmax, xip = value  # type: ignore[misc]
    return int(xmin), int(xmax), [int(x) for x in xip]


async def current_snapshot(conn: asyncpg.Connection) -> Snapshot:
    return parse_snapshot(await store.snapshot(conn))


async def read_new(
    conn: asyncpg.Connection, cursor: Snapshot, statement: str = POLL
) -> tuple[Found, Snapshot]:
    """Everything committed since `cursor` was taken, and the cursor to read from next."""
    _xmin, xmax, xip = cursor
    rows = await store.poll(conn, statement=statement, xmax=xmax, xip=xip)
    found = Found()
    snapshot = cursor
    for row in rows:
        kind = row["t"]
        if kind == "s":
            snapshot = parse_snapshot(row["snapshot"])
        elif kind == "m":
            found.conversations.add(int(row["ref"]))
        elif kind == "p":
            found.pushes = True
        else:
            found.events.add((row["user_id"], row["kind"], int(row["ref"])))
    return found, snapshot


class Reader:
    """Polls on the connection it is given (the instance's listener connection) and hands
    what it found to `deliver`. The cursor outlives connections: after a database restart
    the next poll reads everything committed since the last one, and nothing twice."""

    def __init__(
        self,
        deliver: Callable[[Found], None],
        *,
        min_gap: float = 0.004,
        max_gap: float = 0.016,
        max_interval: float = 0.25,
        wake_gap: float = 0.01,
    ) -> None:
        self.deliver = deliver
        self.min_gap = min_gap
        self.max_gap = max_gap
        self.max_interval = max_interval
        self.wake_gap = wake_gap
        self.cursor: Snapshot | None = None
        self.counters = Counters()
        # What each poll runs (`poll_statement`), and how long one may take before the
        # connection is given up for dead (None: as long as it takes).
        self.statement = POLL
        self.poll_timeout: float | None = None
        # Sends one wake-up to the other instances (False: none to wake); set by the owner
        # of the connection.
        self.send_wake: Callable[[], bool] | None = None
        self._asked = asyncio.Event()
        self._local = False  # a poll was asked for by a write here
        self._last_wake = -1e9

    def nudge(self) -> None:
        """Something may have been written by this process: poll soon."""
        self._local = True
        self._asked.set()

    def woken(self) -> None:
        """Another instance's reader found rows: poll soon (without waking the others)."""
        self._asked.set()

    async def start(self, conn: asyncpg.Connection) -> None:
        """The first cursor, taken when the instance starts: older rows are the business of
        each subscriber's own catch-up read."""
        if self.cursor is None:
            self.cursor = await current_snapshot(conn)

    async def poll(self, conn: asyncpg.Connection) -> Found:
        await self.start(conn)
        assert self.cursor is not None
        local, self._local = self._local, False
        found, self.cursor = await read_new(conn, self.cursor, self.statement)
        self.counters.polls += 1
        if found:
            self.counters.found += 1
            self.deliver(found)
            now = asyncio.get_running_loop().time()
            if (
                local
                and self.send_wake is not None
                and now - self._last_wake >= self.wake_gap
                and self.send_wake()
            ):
                self._last_wake = now
                self.counters.wakes_sent += 1
        return found

    async def run(self, conn: asyncpg.Connection, lock: asyncio.Lock) -> None:
        """Polls until the connection fails (the error propagates to the owner, which
        reconnects and calls `run` again with the cursor kept). `lock` guards the
        connection, which the owner uses too."""
        loop = asyncio.get_running_loop()
        interval = gap = self.min_gap
        async with lock:
            await self.start(conn)
        while True:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a cancel that
            # lands as the event fires, and this loop would then outlive its owner's stop().
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self._asked.wait()
            self._asked.clear()
            began = loop.time()
            async with lock, asyncio.timeout(self.poll_timeout):
                found = await self.poll(conn)
            if found:
                interval = self.min_gap
            else:
                interval, gap = min(interval * 2, self.max_interval), self.min_gap
            # Pacing: whatever asks meanwhile waits for the gap, and is served by one poll.
            rest = gap - (loop.time() - began)
            if rest > 0:
                await asyncio.sleep(rest)
            if found:
                # Rows keep coming: poll less often and read more per poll (each poll
                # costs the database the same fixed work, however few rows it finds).
                gap = min(gap * 2, self.max_gap)
