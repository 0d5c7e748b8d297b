"""The instance's reader: every committed message and person event found once, in order per
conversation, whatever the order of ids and commits; after a database restart it resumes
from its cursor; writers send no NOTIFY, and the readers' wake-ups are paced."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from parley import conversations
from parley.db import Database, asyncpg_dsn
from parley.messages import store as message_store
from parley.migrate import upgrade
from parley.models import Role
from parley.realtime.hub import Hub, Subscriber, message_fetcher
from parley.realtime.notifier import LIVE_CHANNEL, Notifier
from parley.realtime.reader import Found, Reader
from parley.realtime.waits import Waits
from tests.conftest import eventually
from tests.fault.test_database_restart import Restartable


async def _append(conn: asyncpg.Connection, conversation_id: int, text: str) -> int:
    message = await message_store.append(
        conn,
        conversation_id=conversation_id,
        user_id="alice",
        role=Role.agent,
        content=text,
        author="helper",
    )
    assert message.id is not None
    return message.id


async def _drain(sub: Subscriber, count: int) -> list[int]:
    got = []
    for _ in range(count):
        _event, _data, message_id = await asyncio.wait_for(sub.get(), timeout=10)
        assert message_id is not None
        got.append(message_id)
    return got


@pytest.fixture
async def connections(migrated: str) -> AsyncIterator[list[asyncpg.Connection]]:
    conns = [await asyncpg.connect(asyncpg_dsn(migrated)) for _ in range(3)]
    try:
        yield conns
    finally:
        for conn in conns:
            await conn.close()


async def test_a_late_commit_with_a_lower_id_is_delivered_once_and_in_order(db, connections):
    """The trap: ids are drawn at insert, rows become visible at commit. Transaction 1 takes
    id N and stays open; transaction 2 takes N+1 and commits first. A reader that went on
    from "the highest id seen" would skip N forever."""
    reader_conn, slow, fast = connections
    first = await conversations.create_conversation(db, user_id="alice")
    second = await conversations.create_conversation(db, user_id="alice")
    hub = Hub(message_fetcher(db))
    found: list[Found] = []

    def deliver(what: Found) -> None:
        found.append(what)
        for conversation_id in what.conversations:
            hub.message_stored(conversation_id)

    reader = Reader(deliver)
    watch_first, watch_second = (
        await hub.subscribe(first, 0, user_id="alice"),
        await hub.subscribe(second, 0, user_id="alice"),
    )
    await reader.start(reader_conn)

    # Across conversations: the long transaction holds the lower id.
    long = slow.transaction()
    await long.start()
    late_id = await _append(slow, first, "taken first, committed last")
    early_id = await _append(fast, second, "taken second, committed first")
    assert late_id < early_id
    assert (await reader.poll(reader_conn)).conversations == {second}
    assert await _drain(watch_second, 1) == [early_id]
    await long.commit()
    assert (await reader.poll(reader_conn)).conversations == {first}
    assert await _drain(watch_first, 1) == [late_id]
    assert not await reader.poll(reader_conn)  # each row once

    # Within a conversation: the older transaction (lower xid) writes last, and its row
    # still comes after the one committed before it, each once.
    older = slow.transaction()
    await older.start()
    await slow.execute("UPDATE conversations SET title = 'xid taken' WHERE id = $1", first)
    newer_row = await _append(fast, second, "newer transaction, committed first")
    assert (await reader.poll(reader_conn)).conversations == {second}
    older_row = await _append(slow, second, "older transaction, written after")
    await older.commit()
    assert (await reader.poll(reader_conn)).conversations == {second}
    assert await _drain(watch_second, 2) == [newer_row, older_row]
    assert not await reader.poll(reader_conn)
    # Nothing extra on either stream: a marker written now is the next thing each gets.
    markers = [await _append(fast, c, "marker") for c in (first, second)]
    await reader.poll(reader_conn)
    assert await _drain(watch_first, 1) == [markers[0]]
    assert await _drain(watch_second, 1) == [markers[1]]


async def test_a_rolled_back_row_is_never_found_and_person_events_are(db, connections):
    reader_conn, writer, _ = connections
    conversation_id = await conversations.create_conversation(db, user_id="alice")
    reader = Reader(lambda _found: None)
    await reader.start(reader_conn)
    undone = writer.transaction()
    await undone.start()
    await _append(writer, conversation_id, "never committed")
    await undone.rollback()
    assert not await reader.poll(reader_conn)
    await _append(writer, conversation_id, "kept")
    found = await reader.poll(reader_conn)
    assert found.conversations == {conversation_id}
    assert ("alice", "message", await _last_message(writer)) in found.events


async def _last_message(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT max(id) FROM messages"))


@pytest.fixture
async def restartable() -> AsyncIterator[Restartable]:
    pg = await asyncio.to_thread(Restartable)
    try:
        await asyncio.to_thread(upgrade, pg.url)
        yield pg
    finally:
        await asyncio.to_thread(pg.close)


@pytest.mark.timeout(120)
async def test_the_reader_survives_a_database_restart_and_resumes_from_its_cursor(restartable):
    db = await Database.connect(restartable.url, max_connections=2)
    hub = Hub(message_fetcher(db))
    notifier = Notifier(database_url=restartable.url, hub=hub, retry_seconds=0.2)
    try:
        await notifier.start()
        conversation_id = await conversations.create_conversation(db, user_id="alice")
        sub = await hub.subscribe(conversation_id, 0, user_id="alice")
        async with db.transaction() as conn:
            before = await _append(conn, conversation_id, "before")
        assert await _drain(sub, 1) == [before]
        cursor = notifier.reader.cursor
        await asyncio.to_thread(restartable.restart, 0.5)

        async def write_during() -> int | None:
            try:
                async with db.transaction() as conn:
                    return await _append(conn, conversation_id, "after the restart")
            except Exception:
                return None  # the pool learns of the restart on this checkout

        written: list[int] = []

        async def wrote() -> bool:
            if (message_id := await write_during()) is not None:
                written.append(message_id)
            return bool(written)

        await eventually(wrote, within=30)
        assert await _drain(sub, 1) == written
        await eventually(lambda: _true(notifier.reader.counters.reconnects >= 1), within=30)
        # It moves on from the cursor it kept (at its first poll after the reconnect; the
        # message above may have come through the hub's re-read before that poll).
        await eventually(lambda: _true(notifier.reader.cursor != cursor), within=30)
        # Nothing twice: the next message is the next thing delivered.
        async with db.transaction() as conn:
            last = await _append(conn, conversation_id, "last")
        assert await _drain(sub, 1) == [last]
    finally:
        await notifier.stop()
        await db.close()


async def test_the_cursor_alone_finds_what_was_written_while_the_reader_was_away(
    db, migrated, connections
):
    """Without the hub's re-read after a reconnect: only the cursor kept across
    connections."""
    reader_conn, writer, _ = connections
    conversation_id = await conversations.create_conversation(db, user_id="alice")
    reader = Reader(lambda _found: None)
    await reader.start(reader_conn)
    await reader_conn.close()  # the reader's connection is gone
    await _append(writer, conversation_id, "while away")
    fresh = await asyncpg.connect(asyncpg_dsn(migrated))
    try:
        assert (await reader.poll(fresh)).conversations == {conversation_id}
        assert not await reader.poll(fresh)
    finally:
        await fresh.close()


async def _true(value: bool) -> bool:
    return value


async def test_writers_send_no_notify_and_wake_ups_are_paced(migrated, db):
    """200 messages written through this instance's pool: each is delivered, no writer
    NOTIFYs, and the reader's wake-ups to the other instance are at most one per poll and
    one per `wake_gap` — counted, the time only giving the bound."""
    probe = await asyncpg.connect(asyncpg_dsn(migrated))
    heard: dict[str, list[str]] = {}

    def on_note(_c: Any, _pid: int, channel: str, payload: str) -> None:
        heard.setdefault(channel, []).append(payload)

    for channel in ("parley_messages", "parley_events", LIVE_CHANNEL):
        await probe.add_listener(channel, on_note)
    hub, waits = Hub(message_fetcher(db)), Waits()
    notifier = Notifier(database_url=migrated, hub=hub, waits=waits)
    peer = Notifier(database_url=migrated, hub=Hub(message_fetcher(db)))  # another instance
    db.on_release = notifier.reader.nudge
    try:
        await peer.start()
        await notifier.start()
        assert notifier.peers
        conversation_id = await conversations.create_conversation(db, user_id="alice")
        sub = await hub.subscribe(conversation_id, 0, user_id="alice")
        writes = 200
        began = time.monotonic()
        ids = []
        for i in range(writes):
            async with db.transaction() as conn:
                ids.append(await _append(conn, conversation_id, f"message {i}"))
        assert await _drain(sub, writes) == ids
        counters = notifier.reader.counters
        # Settled: every wake-up counted has arrived (the last polls may still be sending).
        await eventually(lambda: _true(len(_wakes(heard)) == counters.wakes_sent))
        sent, arrived = counters.wakes_sent, len(_wakes(heard))
        elapsed = time.monotonic() - began
        marker = json.dumps([{"marker": 1}])
        await probe.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, marker)
        await eventually(lambda: _true(marker in heard.get(LIVE_CHANNEL, [])))
    finally:
        db.on_release = lambda: None
        await notifier.stop()
        await peer.stop()
        await probe.close()
    assert "parley_messages" not in heard and "parley_events" not in heard
    assert 1 <= sent == arrived
    # Bounded per second whatever the write rate, and never more than one per poll.
    assert sent <= 1 + elapsed / notifier.reader.wake_gap
    assert sent <= counters.found <= counters.polls


def _wakes(heard: dict[str, list[str]]) -> list[Any]:
    return [
        note
        for payload in heard.get(LIVE_CHANNEL, [])
        for note in json.loads(payload)
        if "wake" in note
    ]


async def test_a_component_listens_on_the_instance_connection_across_reconnects(migrated, db):
    """Work sessions' notes and the like share the instance's one connection."""
    heard: list[str] = []
    notifier = Notifier(database_url=migrated, hub=Hub(message_fetcher(db)), retry_seconds=0.1)
    probe = await asyncpg.connect(asyncpg_dsn(migrated))
    try:
        await notifier.start()
        await notifier.listen("parley_test_notes", heard.append)
        await probe.execute("SELECT pg_notify('parley_test_notes', 'one')")
        await eventually(lambda: _true(heard == ["one"]))
        await probe.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'parley-listen' AND datname = current_database()"
        )
        await eventually(lambda: _true(notifier.reader.counters.reconnects == 1))
        await probe.execute("SELECT pg_notify('parley_test_notes', 'two')")
        await eventually(lambda: _true(heard == ["one", "two"]))
    finally:
        await notifier.stop()
        await probe.close()
