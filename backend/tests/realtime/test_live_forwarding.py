"""Live events between instances: a reply's events cross over only to an instance that
watches its conversation, and a watcher that comes mid-reply gets all of it, once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from parley import conversations
from parley.db import asyncpg_dsn
from parley.realtime.hub import Hub, Subscriber, message_fetcher
from parley.realtime.notifier import LIVE_CHANNEL, Notifier
from tests.conftest import eventually


@asynccontextmanager
async def _instances(migrated: str, db: Any, count: int = 2) -> AsyncIterator[list[Notifier]]:
    notifiers = [
        Notifier(database_url=migrated, hub=Hub(message_fetcher(db))) for _ in range(count)
    ]
    try:
        for notifier in notifiers:
            await notifier.start()
        yield notifiers
    finally:
        for notifier in notifiers:
            await notifier.stop()


class Probe:
    """Hears the live channel as any instance does: what crossed the database."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.notes: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, url: str) -> Probe:
        probe = cls(await asyncpg.connect(asyncpg_dsn(url)))
        await probe.conn.add_listener(
            LIVE_CHANNEL, lambda *args: probe.notes.extend(json.loads(args[-1]))
        )
        return probe

    def live(self, conversation_id: int) -> list[dict[str, Any]]:
        return [
            n for n in self.notes if n.get("conversation_id") == conversation_id and "event" in n
        ]

    async def flushed(self, writer: Notifier, conversation_id: int) -> None:
        """Until everything the writer queued before now has crossed: its stop request
        goes out through the same queue, after them."""
        stops = self._stops(conversation_id)
        writer.forward_stop(conversation_id)

        async def arrived() -> bool:
            return self._stops(conversation_id) > stops

        await eventually(arrived)

    def _stops(self, conversation_id: int) -> int:
        return sum(
            1 for n in self.notes if n.get("conversation_id") == conversation_id and "stop" in n
        )


async def _text_until(sub: Subscriber, end: str) -> tuple[str, list[tuple[str, Any]]]:
    """The deltas' text (and the tool events) a subscriber gets, until the text ends with
    `end`."""
    text, tools = "", []
    async with asyncio.timeout(20):
        while not text.endswith(end):
            event, data, _id = await sub.get()
            if event == "delta":
                text += json.loads(data)["text"]
            elif event != "message":
                tools.append((event, json.loads(data)))
    return text, tools


async def _peers(*notifiers: Notifier) -> None:
    async def all_see_peers() -> bool:
        return all(n.peers for n in notifiers)

    await eventually(all_see_peers)


async def _known(writer: Notifier, conversation_id: int, watched: bool) -> None:
    async def as_told() -> bool:
        return (conversation_id in writer.watched_elsewhere) == watched

    await eventually(as_told)


async def test_a_reply_crosses_to_another_instance_only_while_it_watches(migrated, db):
    probe = await Probe.open(migrated)
    try:
        async with _instances(migrated, db) as (writer, other):
            await _peers(writer, other)
            conversation_id = await conversations.create_conversation(db, user_id="alice")
            writer.publish_live(conversation_id, "delta", {"text": "nobody "})
            writer.publish_live(conversation_id, "delta", {"text": "elsewhere"})
            writer.publish_live(conversation_id, "turn_end", {})
            await probe.flushed(writer, conversation_id)
            assert probe.live(conversation_id) == []

            sub = await other.hub.subscribe(conversation_id, 0, user_id="alice")
            await _known(writer, conversation_id, True)
            for word in ("Watched ", "at ", "last"):
                writer.publish_live(conversation_id, "delta", {"text": word})
            text, _tools = await _text_until(sub, "last")
            assert text == "Watched at last"

            other.hub.unsubscribe(sub)
            await _known(writer, conversation_id, False)
            before = len(probe.live(conversation_id))
            writer.publish_live(conversation_id, "delta", {"text": " and gone"})
            await probe.flushed(writer, conversation_id)
            assert len(probe.live(conversation_id)) == before
    finally:
        await probe.conn.close()


async def test_a_watcher_that_comes_mid_reply_gets_the_whole_reply_once(migrated, db):
    async with _instances(migrated, db) as (writer, other):
        await _peers(writer, other)
        conversation_id = await conversations.create_conversation(db, user_id="alice")
        publish = writer.publish_live
        publish(conversation_id, "tool_call", {"call_id": "c1", "tool": "add_task"})
        words = [f"w{i} " for i in range(300)]
        for word in words[:20]:
            publish(conversation_id, "delta", {"text": word})

        async def keep_writing() -> None:
            for i, word in enumerate(words[20:]):
                publish(conversation_id, "delta", {"text": word})
                if i == 100:
                    publish(conversation_id, "tool_result", {"call_id": "c1", "result": 1})
                await asyncio.sleep(0.0005)  # a model's pace: the watch arrives mid-way
            publish(conversation_id, "delta", {"text": "END"})

        writing = asyncio.create_task(keep_writing())
        first = await other.hub.subscribe(conversation_id, 0, user_id="alice")
        text, tools = await _text_until(first, "END")
        await writing
        second = await other.hub.subscribe(
            conversation_id, 0, user_id="alice"
        )  # watching already: its copy
        text2, tools2 = await _text_until(second, "END")
    expected = "".join(words) + "END"
    assert text == text2 == expected
    assert (
        tools
        == tools2
        == [
            ("tool_call", {"call_id": "c1", "tool": "add_task"}),
            ("tool_result", {"call_id": "c1", "result": 1}),
        ]
    )


async def test_a_long_delta_crosses_in_pieces(migrated, db):
    """Past NOTIFY's 8 kB a delta goes in pieces, each at its place (escaped characters
    take up to 12 bytes each): a live one, and the replay of a long reply so far."""
    async with _instances(migrated, db) as (writer, other):
        await _peers(writer, other)
        conversation_id = await conversations.create_conversation(db, user_id="alice")
        before = "\U0001f600" * 3000 + 'é"\n\x01' * 1000  # written before anyone watched
        writer.publish_live(conversation_id, "delta", {"text": before})
        sub = await other.hub.subscribe(conversation_id, 0, user_id="alice")
        await _known(writer, conversation_id, True)
        long = "\U0001f600" * 5000 + 'é"\n\x01' * 2000 + "END"
        writer.publish_live(conversation_id, "delta", {"text": long})
        text, _tools = await _text_until(sub, "END")
    assert text == before + long


async def test_a_new_instance_hears_what_the_others_watch(migrated, db):
    hub = Hub(message_fetcher(db))
    alone = Notifier(database_url=migrated, hub=hub)
    await alone.start()
    try:
        conversation_id = await conversations.create_conversation(db, user_id="alice")
        sub = await hub.subscribe(conversation_id, 0, user_id="alice")
        async with _instances(migrated, db, count=1) as (newcomer,):
            await _known(newcomer, conversation_id, True)
            newcomer.publish_live(conversation_id, "delta", {"text": "to the old one"})
            text, _tools = await _text_until(sub, "old one")
        assert text == "to the old one"
    finally:
        await alone.stop()
