"""Event streams as SSE: a conversation's, and a turn's own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Message, Send

from parley import events
from parley.realtime.hub import Hub

# Seconds a stopped turn gets to store its reply before its stream gives up on it.
STOP_SECONDS = 2.0
RESTARTING = {
    "error": {
        "code": "server_restarting",
        "message": "The server is restarting: this reply was cut short and stored as it was."
        " Reconnect in a moment to continue.",
    }
}


def sse_response(
    stream: AsyncIterator[tuple[str, dict[str, Any]]],
    *,
    shutdown_grace: float = 0,
    stop: Callable[[], object] | None = None,
) -> EventSourceResponse:
    """A turn's events as SSE; stored messages carry `id:` (their id, a resumable cursor).

    When the server begins to shut down the stream goes on as usual: the turn has most of
    `shutdown_grace` seconds to finish. A turn still running then is stopped (`stop`: its
    reply so far is stored, marked stopped), that stored reply is sent, and the stream ends
    with an `error` event saying to reconnect instead of `done`.
    """
    shutting_down = anyio.Event()

    async def encoded() -> AsyncIterator[ServerSentEvent]:
        loop = asyncio.get_running_loop()
        items = aiter(stream)
        began = asyncio.ensure_future(shutting_down.wait())
        pending: asyncio.Future[tuple[str, dict[str, Any]]] | None = None
        deadline: float | None = None
        cut_short = False
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(anext(items))
                waiting: set[asyncio.Future[Any]] = {pending}
                if deadline is None:
                    waiting.add(began)
                timeout = None if deadline is None else max(deadline - loop.time(), 0)
                done, _ = await asyncio.wait(
                    waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if pending in done:
                    finished, pending = pending, None
                    try:
                        event, data = finished.result()
                    except StopAsyncIteration:
                        return
                    if cut_short and event == events.DONE:
                        event, data = events.ERROR, RESTARTING
                    yield _encoded(event, data)
                elif deadline is None:  # shutdown began: the turn's time to finish
                    deadline = loop.time() + max(shutdown_grace - STOP_SECONDS - 1, 0)
                elif cut_short or stop is None:
                    yield _encoded(events.ERROR, RESTARTING)
                    return
                else:  # out of time: stop it, and give it a moment to store what it has
                    cut_short = True
                    stop()
                    deadline = loop.time() + STOP_SECONDS
        finally:
            began.cancel()
            if pending is not None:
                pending.cancel()

    return EventSourceResponse(
        encoded(), ping=15, shutdown_event=shutting_down, shutdown_grace_period=shutdown_grace
    )


def _encoded(event: str, data: dict[str, Any]) -> ServerSentEvent:
    message_id = data.get("id") if event == events.MESSAGE else None
    return ServerSentEvent(
        data=json.dumps(data), event=event, id=str(message_id) if message_id else None
    )


class FanOutResponse(EventSourceResponse):
    """A conversation's stream. Each send goes straight to the server: sse-starlette wraps
    every send in a cancel scope only to enforce `send_timeout`, which these streams do
    not set, and with 1,000 watchers of a conversation that scope is a good part of the
    cost of handing them a message."""

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is None:
            await send(message)
        else:
            await super()._send_with_timeout(send, message)


def conversation_stream(
    hub: Hub, conversation_id: int, after: int, *, ping_seconds: float
) -> EventSourceResponse:
    return FanOutResponse(
        conversation_events(hub, conversation_id, after, ping_seconds=ping_seconds),
        ping=0,  # the stream sends its own heartbeat (see conversation_events)
    )


async def conversation_events(
    hub: Hub, conversation_id: int, after: int, *, ping_seconds: float
) -> AsyncIterator[ServerSentEvent | bytes]:
    """The heartbeat is sent from here rather than by a separate ping task per response:
    an idle stream then costs one suspended generator, not two tasks. Events go out as the
    bytes the hub encoded once for all its subscribers; the ping timer is armed only when
    there is nothing queued."""
    sub = await hub.subscribe(conversation_id, after)
    try:
        while True:
            frame = sub.pop()
            if frame is None:
                try:
                    async with asyncio.timeout(ping_seconds):
                        frame = await sub.next_frame()
                except TimeoutError:
                    yield ServerSentEvent(comment="ping")
                    continue
            yield frame.encoded()
    finally:
        hub.unsubscribe(sub)
