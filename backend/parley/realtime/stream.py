"""A conversation's event stream as SSE, and the emitter that feeds it from a turn."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import ServerSentEvent

from parley.assistant.runner import Emit
from parley.realtime.hub import Hub
from parley.realtime.notifier import Notifier

LIVE_EVENTS = frozenset({"delta", "tool_call", "tool_result"})


def live_emitter(notifier: Notifier, conversation_id: int, also: Emit | None = None) -> Emit:
    """Publish a turn's live events to every watcher; stored messages announce themselves."""

    def emit(event: str, data: dict[str, Any]) -> None:
        if event in LIVE_EVENTS:
            notifier.publish_live(conversation_id, event, data)
        if also is not None:
            also(event, data)

    return emit


async def conversation_events(
    hub: Hub, conversation_id: int, after: int, *, ping_seconds: float
) -> AsyncIterator[ServerSentEvent]:
    """The heartbeat is sent from here rather than by a separate ping task per response:
    an idle stream then costs one suspended generator, not two tasks."""
    sub = await hub.subscribe(conversation_id, after)
    try:
        while True:
            try:
                async with asyncio.timeout(ping_seconds):
                    event, data, message_id = await sub.get()
            except TimeoutError:
                yield ServerSentEvent(comment="ping")
                continue
            yield ServerSentEvent(
                data=data, event=event, id=str(message_id) if message_id else None
            )
    finally:
        hub.unsubscribe(sub)
