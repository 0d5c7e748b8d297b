"""The hub alone, with an in-memory message store: catch-up, live events, mid-reply joins."""

from __future__ import annotations

import json
from typing import Any

import pytest

from parley.realtime.hub import Hub

pytestmark = pytest.mark.unit


class Store:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, text: str) -> None:
        self.rows.append({"id": len(self.rows) + 1, "content": text})

    async def fetch(self, _conversation_id: int, after: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["id"] > after]


async def test_a_subscriber_catches_up_then_gets_new_messages_once():
    store = Store()
    store.add("one")
    hub = Hub(store.fetch)
    sub = await hub.subscribe(1, after=0)
    assert await sub.get() == ("message", json.dumps(store.rows[0]), 1)
    store.add("two")
    hub.message_stored(1)
    hub.message_stored(1)  # a duplicate notification costs a query, never a message
    assert await sub.get() == ("message", json.dumps(store.rows[1]), 2)
    hub.publish_live(1, "delta", {"text": "x"})
    assert await sub.get() == ("delta", json.dumps({"text": "x"}), None)


async def test_joining_mid_reply_starts_with_the_text_so_far():
    hub = Hub(Store().fetch)
    hub.publish_live(1, "tool_call", {"call_id": "c", "tool": "add_task"})
    hub.publish_live(1, "delta", {"text": "Hel"})
    hub.publish_live(1, "delta", {"text": "lo"})
    sub = await hub.subscribe(1, after=0)
    assert await sub.get() == ("tool_call", json.dumps({"call_id": "c", "tool": "add_task"}), None)
    assert await sub.get() == ("delta", json.dumps({"text": "Hello"}), None)
    hub.publish_live(1, "turn_end", {})
    late = await hub.subscribe(1, after=0)
    hub.publish_live(1, "delta", {"text": "new"})
    assert await late.get() == ("delta", json.dumps({"text": "new"}), None)
