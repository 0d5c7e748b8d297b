"""Who in this process is waiting for what: a person's event stream, an agent waiting for
an answer, a delegation. Woken by the instance's reader (`realtime.reader`), which finds
every person event committed on any instance.

A wake only says "look again": waiters re-read PostgreSQL, which holds the truth, so a
missed or duplicated notification costs at most a query, never an answer. Each waiter
is one future: 500 agents waiting for 500 answers wake one at a time, each on its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

# Writers no longer NOTIFY this channel (migration 0045); kept so old wiring still imports.
EVENTS_CHANNEL = "parley_events"
# Woken when rows were added to the push outbox (by any instance): the push sender's key.
PUSHES = ("table", "push_outbox")


class Waits:
    def __init__(self) -> None:
        self._waiting: dict[Hashable, set[asyncio.Future[None]]] = {}

    @contextmanager
    def watch(self, key: Hashable) -> Iterator[asyncio.Future[None]]:
        """Register before reading what you wait for, then await the future: a change
        committed between the read and the await still wakes you."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, set()).add(future)
        try:
            yield future
        finally:
            waiting = self._waiting.get(key)
            if waiting is not None:
                waiting.discard(future)
                if not waiting:
                    del self._waiting[key]

    def watchers(self, key: Hashable) -> int:
        """How many in this process wait on `key` now (see `Hub.watchers`)."""
        return len(self._waiting.get(key, ()))

    def wake(self, key: Hashable) -> None:
        for future in self._waiting.get(key, ()):
            if not future.done():
                future.set_result(None)

    def wake_all(self) -> None:
        """After a lost notification connection anything may have been missed."""
        for key in list(self._waiting):
            self.wake(key)

    def on_event(self, user_id: str, kind: str, ref: int) -> None:
        """A person event was committed: wake whoever watches the person or the thing."""
        self.wake(("user", user_id))
        self.wake((kind, ref))

    def on_notification(self, payload: str) -> None:
        """`{"u": user, "k": kind, "r": ref}`: the same as `on_event`, as the JSON payload
        of a notification (kept for callers that still listen on a channel)."""
        try:
            note = json.loads(payload)
            self.on_event(note["u"], note["k"], int(note["r"]))
        except (ValueError, KeyError, TypeError):
            log.warning("bad event notification: %r", payload)

    def __len__(self) -> int:
        return sum(len(v) for v in self._waiting.values())
