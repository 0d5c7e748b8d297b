"""The one place a turn runs: detached from the request, its live events shown to every
watcher, streamed to its caller, stoppable, and waited for at shutdown.

A turn here is any coroutine that takes an `Emit` and a stop event and returns something
with a JSON `body()`: a chat turn today, a work-session prompt or an agent's turn tomorrow.
The runner knows nothing about HTTP; the route turns its events into SSE.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from parley import events
from parley.errors import ParleyError
from parley.events import Emit

log = logging.getLogger(__name__)

PublishLive = Callable[[int, str, dict[str, Any]], None]


class Result(Protocol):
    def body(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class TurnResult:
    """What a person's turn answers, whichever mode ran it: the assistant's reply in a chat,
    the prompt's final text in a work session (`POST /chat`'s JSON body)."""

    conversation_id: int
    response: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "response": self.response,
            "tool_calls": self.tool_calls,
        }


Work = Callable[[Emit, asyncio.Event], Awaitable[Result]]
Event = tuple[str, dict[str, Any]]
_END: Event = ("", {})  # the end of a stream (compared by identity)


class TurnRunner:
    """One per process. `publish_live(conversation_id, event, data)` delivers live events to
    the conversation's watchers (the notifier, on every instance); `forward_stop` asks the
    other instances to stop a turn that is not running here."""

    def __init__(
        self, publish_live: PublishLive, forward_stop: Callable[[int], None] | None = None
    ) -> None:
        self.publish_live = publish_live
        self.forward_stop = forward_stop or (lambda _conversation_id: None)
        self.tasks: set[asyncio.Task[Any]] = set()
        self._stops: dict[int, asyncio.Event] = {}

    async def run(self, conversation_id: int, work: Work) -> Result:
        """Run a turn to its end and return its result; the caller going away does not
        cancel it."""
        task = self._spawn(conversation_id, work, None)
        return await asyncio.shield(task)

    def stream(
        self, conversation_id: int, work: Work, first: Iterable[Event] = ()
    ) -> AsyncIterator[Event]:
        """Start a turn now and give its events: `first`, then what the turn emits, then
        `done` (the result's body) or `error` (a ParleyError's body)."""
        queue: asyncio.Queue[Event] = asyncio.Queue()
        for item in first:
            queue.put_nowait(item)
        task = self._spawn(conversation_id, work, queue)
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no warning

        async def drain() -> AsyncIterator[Event]:
            while (item := await queue.get()) is not _END:
                yield item

        return drain()

    def stop(self, conversation_id: int) -> bool:
        """Ask the turn running here in this conversation to end now; False if none is."""
        stop = self._stops.get(conversation_id)
        if stop is None or stop.is_set():
            return False
        stop.set()
        return True

    async def drain(self, grace_seconds: float, *, stop_after: float = 5.0) -> None:
        """Let running turns store their replies before the database goes away: `grace_seconds`
        to finish, then each one still running is stopped (its reply so far is stored, marked
        stopped) and gets `stop_after` seconds more to store it."""
        if self.tasks:
            log.info("waiting for %d turn(s) to finish", len(self.tasks))
            await asyncio.wait(set(self.tasks), timeout=grace_seconds)
        if self.tasks:
            log.warning("stopping %d turn(s) still running at shutdown", len(self.tasks))
            for conversation_id in list(self._stops):
                self.stop(conversation_id)
            await asyncio.wait(set(self.tasks), timeout=stop_after)

    def _spawn(
        self, conversation_id: int, work: Work, queue: asyncio.Queue[Event] | None
    ) -> asyncio.Task[Result]:
        stop = asyncio.Event()
        self._stops[conversation_id] = stop

        def emit(event: str, data: dict[str, Any]) -> None:
            if event in events.LIVE or event == events.TURN_END:
                self.publish_live(conversation_id, event, data)
            if queue is not None and event != events.TURN_END:
                queue.put_nowait((event, data))

        async def run() -> Result:
            try:
                result = await work(emit, stop)
                if queue is not None:
                    queue.put_nowait((events.DONE, result.body()))
                return result
            except ParleyError as exc:
                if queue is not None:
                    queue.put_nowait((events.ERROR, exc.body()))
                raise
            finally:
                if self._stops.get(conversation_id) is stop:
                    del self._stops[conversation_id]
                # Nothing more is written (the turn's reply, if stored, ended it already).
                self.publish_live(conversation_id, events.TURN_END, {"message_id": None})
                if queue is not None:
                    queue.put_nowait(_END)

        task = asyncio.create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task
