"""Event streams as SSE: a conversation's, and a turn's own."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import types
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator
from typing import Any, cast

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.types import Message, Receive, Scope, Send

from parley import events
from parley.realtime.hub import Dropped, Frame, Hub, Sink, Stalled

# Scope key for the ASGI server's own `send`, before any middleware wrapped it (set by the
# app's outermost layer): an idle stream's frames are written through it straight to the socket.
SERVER_SEND = "parley.server_send"
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


# What the kernel may hold unsent for one event stream (Linux doubles it): left to itself it
# grows a stream's buffer to megabytes before the server sees that its client stopped
# reading; an event stream needs a fraction of this.
STREAM_SEND_BUFFER = 64 * 1024


def _transport(server_send: Send | None) -> Any:
    """The connection's transport under uvicorn's HTTP/1.1 server, else None."""
    cycle: Any = getattr(server_send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    return None if transport is None or transport.is_closing() else transport


def _set(transport: Any, level: int, option: int, value: int | bytes) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(level, option, value)


def drop_connection(server_send: Send | None) -> bool:
    """End a stream's connection at once, with a reset: what the server still buffered for
    a client that does not read is let go, here and in the kernel (closing it would wait,
    holding both, for that client to read). False when the server is not one whose
    connection this can reach (the stream then just ends)."""
    transport = _transport(server_send)
    if transport is None:
        return False
    _set(transport, socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    return True


class StallGuard(EventSourceResponse):
    """An event stream whose client has not taken a write for `stall_seconds` (its socket
    stays backed up: it stopped reading) is dropped: the memory it held comes back, and a
    client that is still there reconnects with Last-Event-ID and loses nothing. Its socket
    buffers little (`STREAM_SEND_BUFFER`), so a client that stopped reading is seen soon."""

    def __init__(self, content: Any, *, stall_seconds: float, **options: Any) -> None:
        super().__init__(content, send_timeout=stall_seconds, **options)
        self.stall_seconds = stall_seconds

    server_send: Send | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.server_send = scope.get(SERVER_SEND)
        transport = _transport(self.server_send)
        if transport is not None:
            _set(transport, socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)
        try:
            await super().__call__(scope, receive, send)
        except (SendTimeoutError, Dropped):
            await self.drop()

    async def drop(self) -> None:
        if drop_connection(self.server_send):
            await asyncio.sleep(0)  # the server's connection_lost runs: it sees the client gone


class FanOutResponse(StallGuard):
    """A conversation's stream. While it is idle its frames are written by the hub as they
    come (`Subscriber.sink`); its own task only catches up, finishes a write the socket could
    not take at once, and sends the heartbeat. What the hub queues for it is bounded by
    `backlog_bytes` (see `realtime.hub`)."""

    def __init__(
        self,
        hub: Hub,
        conversation_id: int,
        after: int,
        *,
        user_id: str,
        ping_seconds: float,
        stall_seconds: float,
        backlog_bytes: int | None,
    ):
        # The stream sends its own heartbeat.
        super().__init__(_never(), stall_seconds=stall_seconds, ping=0)
        self.hub = hub
        self.conversation_id = conversation_id
        self.user_id = user_id
        self.after = after
        self.ping_seconds = ping_seconds
        self.backlog_bytes = backlog_bytes

    async def _taken(self, write: Awaitable[None]) -> None:
        """A write the client takes within `stall_seconds`, else the stream is dropped."""
        try:
            async with asyncio.timeout(self.stall_seconds):
                await write
        except TimeoutError:
            raise Dropped() from None

    async def _stream_response(self, send: Send) -> None:
        # Subscribed before the client hears of the stream: whatever it does once it has
        # the response (start a turn, say) is seen live here.
        sub = await self.hub.subscribe(
            self.conversation_id, self.after, user_id=self.user_id, budget=self.backlog_bytes
        )
        sub.on_drop = lambda: drop_connection(self.server_send)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        except BaseException:
            self.hub.unsubscribe(sub)
            raise
        sink = _to_socket(self.server_send, _direct(send))
        try:
            while True:
                while (frame := sub.pop()) is not None:
                    await self._taken(send(_body(frame.encoded())))
                # Idle: from here the hub writes this stream's frames itself.
                sub.sink = sink
                quiet = False
                try:
                    async with asyncio.timeout(self.ping_seconds):
                        await sub.wait()
                except TimeoutError:
                    quiet = True
                sub.sink = None
                stalled, sub.stalled = sub.stalled, None
                if isinstance(stalled, BaseException):
                    raise stalled
                if stalled is not None:
                    await self._taken(_finish(stalled.coro, stalled.future))
                elif quiet:  # nothing for a while: the heartbeat
                    await self._taken(send(_body(PING)))
        finally:
            sub.sink = None
            self.hub.unsubscribe(sub)


PING = ServerSentEvent(comment="ping").encode()


def _body(chunk: bytes) -> Message:
    return {"type": "http.response.body", "body": chunk, "more_body": True}


def _direct(send: Send) -> Callable[[Frame], Stalled | None]:
    """A write that runs `send` to completion right now when it can: an ASGI server's send
    of a body chunk only suspends when the socket's buffer is full (flow control). Then the
    suspended send is handed back, to be finished by the stream's own task."""

    def write(frame: Frame) -> Stalled | None:
        coro = cast(Coroutine[Any, Any, None], send(_body(frame.encoded())))
        try:
            future = coro.send(None)
        except StopIteration:
            return None
        return Stalled(coro, future)

    return write


def _to_socket(server_send: Send | None, fallback: Sink) -> Sink:
    """With uvicorn's HTTP/1.1 (httptools) server, a frame for an idle stream is written to
    the connection's transport as the chunk uvicorn itself would write, framed once per frame:
    1,000 watchers of a conversation then cost a socket write each, not a pass of the message
    through every middleware's `send` (only a 200 stream's body chunks go this way, which every
    layer passes through untouched). Anything else — another server, a connection whose
    writes are paused for flow control, or one that is going away — takes `fallback`."""
    cycle: Any = getattr(server_send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    flow = getattr(cycle, "flow", None)
    if transport is None or flow is None or getattr(cycle, "chunked_encoding", None) is not True:
        return fallback

    def write(frame: Frame) -> Stalled | None:
        if flow.write_paused or cycle.disconnected or cycle.response_complete:
            return fallback(frame)
        if transport.is_closing():
            return fallback(frame)
        transport.write(frame.chunk())
        return None

    return write


@types.coroutine
def _finish(coro: Any, future: Any) -> Generator[Any, None, None]:
    """Go on driving a send that suspended inside `_direct`: hand the future it was waiting
    on to the task running this (as the coroutine itself would have), then resume it."""
    while True:
        try:
            yield future
        except BaseException as error:
            try:
                future = coro.throw(error)
            except StopIteration:
                return
            continue
        try:
            future = coro.send(None)
        except StopIteration:
            return


async def _never() -> AsyncIterator[bytes]:
    """The body iterator sse-starlette is given; `_stream_response` replaces its use."""
    if False:  # pragma: no cover
        yield b""


def conversation_stream(
    hub: Hub,
    conversation_id: int,
    after: int,
    *,
    user_id: str,
    ping_seconds: float,
    stall_seconds: float,
    backlog_bytes: int | None,
) -> EventSourceResponse:
    return FanOutResponse(
        hub,
        conversation_id,
        after,
        user_id=user_id,
        ping_seconds=ping_seconds,
        stall_seconds=stall_seconds,
        backlog_bytes=backlog_bytes,
    )
