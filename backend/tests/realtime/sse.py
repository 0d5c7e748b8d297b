"""Server-sent events over a real HTTP response, read with httpx-sse."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
from httpx_sse import EventSource, ServerSentEvent


def events(response: httpx.Response) -> AsyncIterator[ServerSentEvent]:
    """The response's events (heartbeat comments are not events: read lines to see them)."""
    return EventSource(response).aiter_sse()


async def take(
    stream: AsyncIterator[ServerSentEvent], count: int, *, kinds: set[str] | None = None
) -> list[ServerSentEvent]:
    """The next `count` events (of the given kinds)."""
    taken: list[ServerSentEvent] = []
    async for event in stream:
        if kinds and event.event not in kinds:
            continue
        taken.append(event)
        if len(taken) == count:
            break
    return taken
