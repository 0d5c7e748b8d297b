"""Event streams as SSE: a conversation's, and a turn's own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent

from parley import events
from parley.realtime.hub import Hub


def sse_response(stream: AsyncIterator[tuple[str, dict[str, Any]]]) -> EventSourceResponse:
    """A turn's events as SSE; stored messages carry `id:` (their id, a resumable cursor)."""

    async def encoded() -> AsyncIterator[ServerSentEvent]:
        async for event, data in stream:
            message_id = data.get("id") if event == events.MESSAGE else None
            yield ServerSentEvent(
                data=json.dumps(data), event=event, id=str(message_id) if message_id else None
            )

    return EventSourceResponse(encoded(), ping=15)


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
