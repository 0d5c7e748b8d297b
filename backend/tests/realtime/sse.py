"""A small SSE reader over a real HTTP response, comments (heartbeats) included."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Event:
    event: str = "message"
    data: str = ""
    id: str | None = None
    comment: str | None = None
    fields: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.data)


async def events(response: httpx.Response) -> AsyncIterator[Event]:
    current = Event()
    has_field = False
    async for line in response.aiter_lines():
        if line == "":
            if has_field:
                yield current
            current, has_field = Event(), False
            continue
        if line.startswith(":"):
            yield Event(event="", comment=line[1:].strip())
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        has_field = True
        if name == "event":
            current.event = value
        elif name == "data":
            current.data = value if not current.data else current.data + "\n" + value
        elif name == "id":
            current.id = value


async def take(
    stream: AsyncIterator[Event], count: int, *, kinds: set[str] | None = None
) -> list[Event]:
    """The next `count` events (of the given kinds), skipping heartbeats."""
    taken: list[Event] = []
    async for event in stream:
        if event.comment is not None or (kinds and event.event not in kinds):
            continue
        taken.append(event)
        if len(taken) == count:
            break
    return taken
