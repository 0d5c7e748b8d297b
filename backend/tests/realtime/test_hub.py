"""The hub alone, with an in-memory message store: catch-up, live events, mid-reply joins."""

from __future__ import annotations

import asyncio
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


async def test_a_message_stored_as_the_last_pump_ends_is_still_delivered():
    """The wake lands after the pump's loop ended but before asyncio ran its done-callback:
    a pump that still looked registered then would take no wake, and the message would wait
    for the next one in the conversation (the reader's late-commit test caught this)."""
    store = Store()
    hub = Hub(store.fetch)
    sub = await hub.subscribe(1, after=0)
    loop = asyncio.get_running_loop()
    plain_fetch = store.fetch

    def late_message() -> None:
        store.add("late")
        hub.message_stored(1)

    async def fetch_then_wake(conversation_id: int, after: int) -> list[dict[str, Any]]:
        # Queued before the pump task's done-callback, which its return queues next.
        loop.call_soon(late_message)
        hub._fetch = plain_fetch
        return await plain_fetch(conversation_id, after)

    store.add("first")
    hub._fetch = fetch_then_wake
    hub.message_stored(1)
    assert (await asyncio.wait_for(sub.get(), timeout=5))[2] == 1
    assert (await asyncio.wait_for(sub.get(), timeout=5))[2] == 2
