"""A conversation's event stream as SSE, and the emitter that feeds it from a turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import ServerSentEvent

from parley.assistant.runner import Emit
from parley.realtime.hub import Hub
from parley.realtime.notifier import Notifier

LIVE_EVENTS = frozenset({"delta", "tool_call", "tool_result"})


def live_emitter(notifier: Notifier, conversation_id: int, also: Emit | None = None) -> Emit:
    """Publish a turn's live events to every watcher; stored messages announce themselves."""

    async def emit(event: str, data: dict[str, Any]) -> None:
        if event in LIVE_EVENTS:
            notifier.publish_live(conversation_id, event, data)
        if also is not None:
            await also(event, data)

    return emit


async def conversation_events(
    hub: Hub, conversation_id: int, after: int
) -> AsyncIterator[ServerSentEvent]:
    sub = await hub.subscribe(conversation_id, after)
    try:
        while True:
            event, data, message_id = await sub.queue.get()
            yield ServerSentEvent(
                data=data, event=event, id=str(message_id) if message_id else None
            )
    finally:
        hub.unsubscribe(sub)
