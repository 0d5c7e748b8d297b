"""The hub alone, with an in-memory message store: catch-up, live events, mid-reply joins."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from parley.realtime.hub import PAGE, Dropped, Hub, Place

pytestmark = pytest.mark.unit


class Store:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, text: str) -> None:
        self.rows.append({"id": len(self.rows) + 1, "content": text})

    async def fetch(self, _user_id: str, _conversation_id: int, after: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["id"] > after]


async def test_a_subscriber_catches_up_then_gets_new_messages_once():
    store = Store()
    store.add("one")
    hub = Hub(store.fetch)
    sub = await hub.subscribe(1, after=0, user_id="alice")
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
    sub = await hub.subscribe(1, after=0, user_id="alice")
    assert await sub.get() == ("tool_call", json.dumps({"call_id": "c", "tool": "add_task"}), None)
    assert await sub.get() == ("delta", json.dumps({"text": "Hello"}), None)
    hub.publish_live(1, "turn_end", {})
    late = await hub.subscribe(1, after=0, user_id="alice")
    hub.publish_live(1, "delta", {"text": "new"})
    assert await late.get() == ("delta", json.dumps({"text": "new"}), None)


async def test_a_message_stored_as_the_last_pump_ends_is_still_delivered():
    """The wake lands after the pump's loop ended but before asyncio ran its done-callback:
    a pump that still looked registered then would take no wake, and the message would wait
    for the next one in the conversation (the reader's late-commit test caught this)."""
    store = Store()
    hub = Hub(store.fetch)
    sub = await hub.subscribe(1, after=0, user_id="alice")
    loop = asyncio.get_running_loop()
    plain_fetch = store.fetch

    def late_message() -> None:
        store.add("late")
        hub.message_stored(1)

    async def fetch_then_wake(
        user_id: str, conversation_id: int, after: int
    ) -> list[dict[str, Any]]:
        # Queued before the pump task's done-callback, which its return queues next.
        loop.call_soon(late_message)
        hub._fetch = plain_fetch
        return await plain_fetch(user_id, conversation_id, after)

    store.add("first")
    hub._fetch = fetch_then_wake
    hub.message_stored(1)
    assert (await asyncio.wait_for(sub.get(), timeout=5))[2] == 1
    assert (await asyncio.wait_for(sub.get(), timeout=5))[2] == 2


def _queued(sub: Any) -> list[tuple[str, Any]]:
    frames = []
    while (frame := sub.pop()) is not None:
        frames.append((frame.event, json.loads(frame.data)))
    return frames


def _text(frames: list[tuple[str, Any]]) -> str:
    return "".join(data["text"] for event, data in frames if event == "delta")


async def test_a_reply_from_another_instance_is_applied_at_its_place_once():
    """Forwarded events arrive twice, early, or overlapping (a replay beside live events):
    the watcher gets each character and each tool event exactly once, in order."""
    writer, watcher = Hub(Store().fetch), Hub(Store().fetch)
    sent: list[tuple[str, dict[str, Any], Any]] = []

    def write(event: str, data: dict[str, Any]) -> None:
        sent.append((event, data, writer.publish_live(7, event, data)))

    for word in ("Adding ", "the ", "task"):
        write("delta", {"text": word})
    write("tool_call", {"call_id": "c1", "tool": "add_task"})
    sub = await watcher.subscribe(7, after=0, user_id="alice")
    # Live events from past the watcher's start (it asked mid-reply) wait for the replay.
    write("delta", {"text": ": milk"})
    watcher.publish_remote(7, *sent[-1][:2], _elsewhere(sent[-1][2]))
    assert _queued(sub) == []
    for event, data, place in writer.replay(7):
        watcher.publish_remote(7, event, json.loads(data), _elsewhere(place))
    for event, data, place in sent:  # everything again, already had
        watcher.publish_remote(7, event, data, _elsewhere(place))
    write("delta", {"text": "."})
    watcher.publish_remote(7, *sent[-1][:2], _elsewhere(sent[-1][2]))
    frames = _queued(sub)
    assert _text(frames) == "Adding the task: milk."
    assert [f for f in frames if f[0] == "tool_call"] == [
        ("tool_call", {"call_id": "c1", "tool": "add_task"})
    ]
    # The next reply starts afresh; the writer's own replies are never overwritten by
    # another instance's events.
    watcher.publish_remote(7, "turn_end", {}, None)
    watcher.publish_remote(7, "delta", {"text": "Next"}, _elsewhere(Place("2", 0)))
    assert _text(_queued(sub)) == "Next"
    writer.publish_remote(7, "delta", {"text": "foreign"}, _elsewhere(Place("9", 0)))
    assert writer.text_so_far(7) == "Adding the task: milk."


async def test_a_watcher_that_leaves_forgets_the_other_instances_reply():
    """Its end is no longer sent here: kept, it would show a later watcher a reply that
    finished long ago."""
    hub = Hub(Store().fetch)
    watching: list[tuple[int, bool]] = []
    hub.on_watch = lambda conversation_id, on: watching.append((conversation_id, on))
    first = await hub.subscribe(3, after=0, user_id="alice")
    second = await hub.subscribe(3, after=0, user_id="alice")
    hub.publish_remote(3, "delta", {"text": "half a rep"}, _elsewhere(Place("1", 0)))
    hub.unsubscribe(first)
    hub.unsubscribe(second)
    hub.unsubscribe(second)  # twice: still one announcement
    assert watching == [(3, True), (3, False)]
    assert hub.text_so_far(3) == ""
    hub.publish_live(4, "delta", {"text": "mine"})  # a reply written here is kept unwatched
    late = await hub.subscribe(4, after=0, user_id="alice")
    assert _text(_queued(late)) == "mine"


def _elsewhere(place: Place) -> Place:
    """A place as the watcher's notifier names it: the writer's instance, then its reply."""
    return Place(f"writer/{place.reply}", place.at)


async def test_a_replys_end_names_its_stored_message_once_and_only_when_one_was_live():
    """`reply_end` tells a watcher which stored message the live text became, so it can hand
    the text over when that message arrives (later, by the pump) and take what follows as a
    new reply; an end with nothing in flight (a turn's last word after its stored reply)
    sends nothing."""
    hub = Hub(Store().fetch)
    sub = await hub.subscribe(1, after=0, user_id="alice")
    hub.publish_live(1, "delta", {"text": "Step one."})
    hub.publish_live(1, "turn_end", {"message_id": 41})
    hub.publish_live(1, "turn_end", {"message_id": None})  # the runner's own end: nothing live
    hub.publish_live(1, "delta", {"text": "Step two"})
    hub.publish_live(1, "turn_end", {})
    assert _queued(sub) == [
        ("delta", {"text": "Step one."}),
        ("reply_end", {"message_id": 41}),
        ("delta", {"text": "Step two"}),
        ("reply_end", {"message_id": None}),
    ]
    late = await hub.subscribe(1, after=0, user_id="alice")
    assert _queued(late) == []  # nothing in flight: no snapshot, no end


async def test_a_remote_replys_end_reaches_the_watchers_and_a_lost_end_is_made_up():
    """The end crosses instances with its message id. If it was lost (NOTIFY is best
    effort) and the next reply begins, the watchers are told the old one ended first, so
    the next reply's text never runs on from the last one's."""
    hub = Hub(Store().fetch)
    sub = await hub.subscribe(7, after=0, user_id="alice")
    hub.publish_remote(7, "delta", {"text": "One"}, Place("w/1", 0))
    hub.publish_remote(7, "turn_end", {"message_id": 5}, None)
    hub.publish_remote(7, "delta", {"text": "Two"}, Place("w/2", 0))
    hub.publish_remote(7, "delta", {"text": "Three"}, Place("w/3", 0))  # w/2's end was lost
    hub.publish_live(7, "delta", {"text": "Here"})  # a turn here takes over from w/3
    assert _queued(sub) == [
        ("delta", {"text": "One"}),
        ("reply_end", {"message_id": 5}),
        ("delta", {"text": "Two"}),
        ("reply_end", {"message_id": None}),
        ("delta", {"text": "Three"}),
        ("reply_end", {"message_id": None}),
        ("delta", {"text": "Here"}),
    ]


class PagedStore(Store):
    async def fetch(self, _user_id: str, _conversation_id: int, after: int) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["id"] > after][:PAGE]


async def test_a_slow_subscriber_holds_its_budget_at_most_and_still_gets_everything():
    """Catching up on 2,000 messages (a reconnect from the start of a long conversation)
    while reading slowly: it never holds more than its budget (and one message), is handed
    the rest as it drains, in order, then goes live."""
    store = PagedStore()
    for i in range(2000):
        store.add(f"message {i:04} " + "x" * 100)
    hub = Hub(store.fetch)
    sub = await hub.subscribe(1, after=0, user_id="alice", budget=4096)
    frame_size = len(json.dumps(store.rows[0]))
    got: list[int] = []
    most = 0
    while len(got) < 2000:
        most = max(most, sub.queued)
        frame = await asyncio.wait_for(sub.next_frame(), 10)
        got.append(frame.message_id or 0)
    assert got == list(range(1, 2001))
    assert most <= 4096 + frame_size
    hub.publish_live(1, "delta", {"text": "live"})
    assert await asyncio.wait_for(sub.get(), 10) == ("delta", json.dumps({"text": "live"}), None)


async def test_a_full_subscriber_is_dropped_by_a_live_event_and_the_others_keep_it():
    store = Store()
    hub = Hub(store.fetch)
    stuck = await hub.subscribe(1, after=0, user_id="alice", budget=200)
    reader = await hub.subscribe(1, after=0, user_id="alice")
    dropped: list[bool] = []
    stuck.on_drop = lambda: dropped.append(True)
    for i in range(5):  # nobody reads `stuck`: its queue fills, then it is handed nothing
        store.add("y" * 100)
        hub.message_stored(1)
        assert await asyncio.wait_for(reader.get(), 10) == (
            "message",
            json.dumps(store.rows[i]),
            i + 1,
        )
    assert stuck.full and stuck.queued < 200 + 150
    assert hub.watchers(1) == 2 and not dropped
    hub.publish_live(1, "delta", {"text": "now"})  # it could never be handed this later
    assert dropped == [True] and hub.watchers(1) == 1
    assert isinstance(stuck.stalled, Dropped) and stuck.pop() is None
    assert await asyncio.wait_for(reader.get(), 10) == ("delta", json.dumps({"text": "now"}), None)
