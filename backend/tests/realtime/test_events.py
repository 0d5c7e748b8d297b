"""GET .../events: replay, resume, live replies, several instances, lost connections."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import httpx

from parley.assistant.offline import OfflineModel
from parley.db import asyncpg_dsn
from parley.messages import store as message_store
from parley.models import Role
from parley.realtime.notifier import APPLICATION_NAME, LIVE_CHANNEL
from tests.conftest import eventually, spawn_server, token_for
from tests.realtime.sse import events, take


@asynccontextmanager
async def watch(client: httpx.AsyncClient, user: str, conversation_id: int, **kwargs):
    """An open event stream, as an async iterator of events."""
    headers = {"Authorization": f"Bearer {token_for(user)}", **kwargs.pop("headers", {})}
    async with client.stream(
        "GET", f"/api/{user}/conversations/{conversation_id}/events", headers=headers, **kwargs
    ) as response:
        assert response.status_code == 200, await response.aread()
        yield events(response)


async def _post(db, conversation_id: int, text: str, user: str = "alice") -> int:
    """A message from another writer (an agent, another instance) straight into the store."""
    async with db.transaction() as conn:
        message = await message_store.append(
            conn,
            conversation_id=conversation_id,
            user_id=user,
            role=Role.agent,
            content=text,
            author="helper-agent",
        )
    assert message.id is not None
    return message.id


async def _rest_of_reply(stream) -> tuple[str, str]:
    """The deltas' text up to the stored reply (which ends the reply), and that reply."""
    text = ""
    async for event in stream:
        if event.event == "delta":
            text += event.json()["text"]
        elif event.event == "message" and event.json()["role"] == "assistant":
            return text, event.json()["content"]
    raise AssertionError("the stream ended before the stored reply")


async def _conversation(server, user: str = "alice") -> int:
    created = await server.client.post(
        f"/api/{user}/conversations", json={"title": "watched"}, headers=server.headers(user)
    )
    return created.json()["id"]


async def test_reconnecting_with_last_event_id_replays_exactly_what_was_missed(server, db):
    conversation_id = await _conversation(server)
    async with watch(server.client, "alice", conversation_id, params={"after": 0}) as stream:
        ids = [await _post(db, conversation_id, f"first {i}") for i in range(3)]
        seen = await take(stream, 3, kinds={"message"})
    assert [int(e.id) for e in seen] == ids
    assert [e.json()["content"] for e in seen] == ["first 0", "first 1", "first 2"]

    missed = [await _post(db, conversation_id, f"missed {i}") for i in range(4)]
    async with watch(
        server.client, "alice", conversation_id, headers={"Last-Event-ID": seen[-1].id}
    ) as stream:
        replayed = await take(stream, 4, kinds={"message"})
        after = await _post(db, conversation_id, "live")
        live = await take(stream, 1, kinds={"message"})
    assert [int(e.id) for e in replayed] == missed
    assert [int(e.id) for e in live] == [after]


async def test_after_query_replays_and_a_fresh_stream_starts_from_now(server, db):
    conversation_id = await _conversation(server)
    first = await _post(db, conversation_id, "old")
    async with watch(server.client, "alice", conversation_id, params={"after": 0}) as stream:
        assert [int(e.id) for e in await take(stream, 1, kinds={"message"})] == [first]
    async with watch(server.client, "alice", conversation_id) as stream:
        new = await _post(db, conversation_id, "new")
        assert [int(e.id) for e in await take(stream, 1, kinds={"message"})] == [new]


async def test_a_chat_turn_reaches_a_watcher_with_deltas_then_the_stored_reply(server):
    conversation_id = await _conversation(server)
    async with watch(server.client, "alice", conversation_id) as stream:
        turn = asyncio.create_task(server.chat("alice", "add a task to buy milk", conversation_id))
        got = await take(stream, 2, kinds={"message"})
        reply = (await turn).json()
    assert [e.json()["role"] for e in got] == ["user", "assistant"]
    assert got[1].json()["content"] == reply["response"]


async def test_joining_mid_reply_gets_the_text_so_far_then_the_rest(make_server):
    async with make_server(model=OfflineModel(word_pause=0.05)) as server:
        conversation_id = await _conversation(server)
        async with watch(server.client, "alice", conversation_id) as early:
            turn = asyncio.create_task(server.chat("alice", "hello there", conversation_id))
            first_deltas = await take(early, 4, kinds={"delta"})
            async with watch(server.client, "alice", conversation_id) as late:
                joined = await take(late, 1, kinds={"delta", "message"})
                assert joined[0].event == "delta"
                so_far = joined[0].json()["text"]
                assert so_far.startswith("".join(e.json()["text"] for e in first_deltas))
                rest, stored = await _rest_of_reply(late)
                text = so_far + rest
            reply = (await turn).json()["response"]
    assert text == stored == reply


async def _reply_and_end(stream) -> tuple[str, int | None, dict[str, Any]]:
    """The deltas' text up to `reply_end`, the message id it names, and the stored reply;
    nothing live may come between the end and the stored reply."""
    text, ended = "", None
    async for event in stream:
        if event.event == "delta":
            assert ended is None, "a delta after the reply's end"
            text += event.json()["text"]
        elif event.event == "reply_end":
            assert ended is None, "two ends of one reply"
            ended = event.json()["message_id"]
            assert isinstance(ended, int)
        elif event.event == "message" and event.json()["role"] == "assistant":
            return text, ended, event.json()
    raise AssertionError("the stream ended before the stored reply")


async def test_a_replys_end_names_its_stored_copy_here_and_on_another_instance(make_server):
    """What a client needs to render a reply from this stream alone: the live text, then
    which stored message it became (its copy comes by the reader, after live events that
    may belong to the next reply)."""
    async with (
        make_server(model=OfflineModel(word_pause=0.01)) as writer,
        make_server() as reader,
    ):
        conversation_id = await _conversation(writer)
        async with (
            watch(writer.client, "alice", conversation_id) as here,
            watch(reader.client, "alice", conversation_id) as there,
        ):
            turn = asyncio.create_task(writer.chat("alice", "hello there", conversation_id))
            seen = [await _reply_and_end(here), await _reply_and_end(there)]
            reply = (await turn).json()["response"]
    for text, ended, stored in seen:
        assert text == stored["content"] == reply
        assert ended == stored["id"]


async def test_a_client_holding_the_streams_headers_is_subscribed(server):
    """The 200 goes only once the stream is subscribed: a live event published the moment a
    client has the headers reaches it (a client that opens the stream of a new chat right
    after its turn began sees the reply from its first word)."""
    conversation_id = await _conversation(server)
    hub = server.app.services.hub
    for attempt in range(20):  # each a fresh stream and a fresh reply
        async with watch(server.client, "alice", conversation_id) as stream:
            hub.publish_live(conversation_id, "delta", {"text": f"word {attempt}"})
            hub.publish_live(conversation_id, "turn_end", {"message_id": None})
            got = await asyncio.wait_for(take(stream, 2), timeout=10)  # lost: never comes
        assert [(e.event, e.json()) for e in got] == [
            ("delta", {"text": f"word {attempt}"}),
            ("reply_end", {"message_id": None}),
        ]


async def test_a_message_written_on_one_instance_reaches_a_stream_on_another(server, migrated):
    process, base_a = await spawn_server(migrated)
    conversation_id = await _conversation(server)
    async with (
        httpx.AsyncClient(base_url=base_a, timeout=30) as client_a,
        watch(server.client, "alice", conversation_id) as stream_b,
    ):
        turn = await client_a.post(
            "/api/alice/chat",
            json={"message": "add a task to cross over", "conversation_id": conversation_id},
            headers={"Authorization": f"Bearer {token_for('alice')}"},
        )
        assert turn.status_code == 200
        got = await take(stream_b, 2, kinds={"message"})
    assert [e.json()["content"] for e in got] == [
        "add a task to cross over",
        turn.json()["response"],
    ]
    process.terminate()
    await process.wait()


async def test_the_stream_recovers_after_losing_its_database_connection(server, db):
    conversation_id = await _conversation(server)
    async with watch(server.client, "alice", conversation_id) as stream:
        before = await _post(db, conversation_id, "before")
        assert [int(e.id) for e in await take(stream, 1, kinds={"message"})] == [before]
        # What a database restart looks like from the app: every connection dies at once.
        async with db.connection() as conn:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND datname = current_database()"
            )
        during = [await _post(db, conversation_id, f"during outage {i}") for i in range(3)]
        got = await asyncio.wait_for(take(stream, 3, kinds={"message"}), timeout=20)
    assert [int(e.id) for e in got] == during


async def test_idle_streams_get_heartbeats(make_server):
    async with make_server(PARLEY_SSE_PING_SECONDS=0.2) as server:
        conversation_id = await _conversation(server)
        headers = {"Authorization": f"Bearer {token_for('alice')}"}
        url = f"/api/alice/conversations/{conversation_id}/events"
        async with server.client.stream("GET", url, headers=headers) as response:
            comments = []
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    comments.append(line)
                if len(comments) == 2:
                    break
    assert comments == [": ping", ": ping"]


async def test_bad_streams_are_refused_before_they_open(server):
    conversation_id = await _conversation(server, "bob")
    headers = server.headers("alice")
    other = await server.client.get(
        f"/api/alice/conversations/{conversation_id}/events", headers=headers
    )
    assert other.status_code == 404 and other.json()["error"]["code"] == "not_found"
    unknown = await server.client.get("/api/alice/conversations/424242/events", headers=headers)
    assert unknown.status_code == 404
    own = await _conversation(server)
    for bad in ("abc", "-1", "1.5", "9" * 40):
        response = await server.client.get(
            f"/api/alice/conversations/{own}/events", headers={**headers, "Last-Event-ID": bad}
        )
        assert response.status_code == 400, bad
        assert response.json()["error"]["code"] == "bad_last_event_id"
    anonymous = await server.client.get(f"/api/alice/conversations/{own}/events")
    assert anonymous.status_code == 401


async def test_a_reply_being_written_on_one_instance_streams_live_on_another(make_server):
    async with (
        make_server(model=OfflineModel(word_pause=0.02)) as writer,
        make_server() as reader,
    ):
        conversation_id = await _conversation(writer)
        async with watch(reader.client, "alice", conversation_id) as stream:
            turn = asyncio.create_task(writer.chat("alice", "hello there", conversation_id))
            text, stored = await _rest_of_reply(stream)
            reply = (await turn).json()["response"]
    assert text == stored == reply


async def test_live_events_reach_the_database_only_for_a_watcher_elsewhere(make_server, migrated):
    """Alone, nobody else could read them; beside another instance, only once someone there
    watches the conversation (then the reply streams there, whole)."""

    async def instances() -> int:
        count = await probe.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", APPLICATION_NAME
        )
        return int(count)

    async def none_live(conversation_id: int) -> None:
        # NOTIFYs arrive in commit order: once a marker sent after the reply is here, any
        # live event of that reply would be here too.
        marker = json.dumps([{"marker": len(received)}])
        await probe.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, marker)
        await eventually(lambda: _arrived(received, marker))
        assert [n for n in _live_notes(received) if n["conversation_id"] == conversation_id] == []

    received: list[str] = []
    probe = await asyncpg.connect(asyncpg_dsn(migrated))
    try:
        await eventually(lambda: _equals(instances(), 0))  # earlier tests' servers are gone
        await probe.add_listener(LIVE_CHANNEL, lambda *args: received.append(args[-1]))
        async with make_server() as alone:
            conversation_id = await _conversation(alone)
            assert (await alone.chat("alice", "hello", conversation_id)).status_code == 200
            await none_live(conversation_id)  # (its hello on starting is all there is)
            async with make_server() as other:
                await eventually(lambda: _equals(instances(), 2))
                assert (await alone.chat("alice", "hello", conversation_id)).status_code == 200
                await none_live(conversation_id)  # nobody watches it there
                async with watch(other.client, "alice", conversation_id) as stream:
                    turn = asyncio.create_task(alone.chat("alice", "hello there", conversation_id))
                    text, stored = await _rest_of_reply(stream)
                    assert text == stored == (await turn).json()["response"]
                assert await _has_delta(received, conversation_id)
    finally:
        await probe.close()


async def _equals(value: Awaitable[int], expected: int) -> bool:
    return await value == expected


async def _arrived(payloads: list[str], payload: str) -> bool:
    return payload in payloads


def _live_notes(payloads: list[str]) -> list[dict[str, Any]]:
    notes = [note for payload in payloads for note in json.loads(payload)]
    return [n for n in notes if "conversation_id" in n]


async def _has_delta(payloads: list[str], conversation_id: int) -> bool:
    return any(
        n["conversation_id"] == conversation_id and n["event"] == "delta"
        for n in _live_notes(payloads)
    )


class _StalledReader(asyncio.Protocol):
    """An SSE client that stops reading, so the server's writes to it back up."""

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.data = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(self.request)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        self.data += data

    def ids(self) -> list[int]:
        """The ids of the events read so far; a line still arriving (after the last newline,
        `id: ` with its digits yet to come) is not one yet."""
        whole = bytes(self.data).split(b"\n")[:-1]
        return [int(line[4:]) for line in whole if line.startswith(b"id: ")]


def _send_buffer_max() -> int:
    with open("/proc/sys/net/ipv4/tcp_wmem") as f:
        return int(f.read().split()[2])


async def test_a_subscriber_that_stops_reading_holds_up_nobody_and_loses_nothing(server, db):
    """Frames are written to idle streams by the hub itself; a stream whose socket is full
    finishes its write on its own task. More than the kernel's buffers can hold goes to a
    client that is not reading: a reading watcher still gets every message, and the stalled
    one, once it reads again, gets each exactly once and in order."""
    import socket

    conversation_id = await _conversation(server)
    port = int(server.base_url.rsplit(":", 1)[1])
    request = (
        f"GET /api/alice/conversations/{conversation_id}/events HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {token_for('alice')}\r\n\r\n"
    ).encode()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    transport, stalled = await asyncio.get_running_loop().create_connection(
        lambda: _StalledReader(request), sock=sock
    )
    await eventually(lambda: _truthy(b"\r\n\r\n" in stalled.data))
    transport.pause_reading()
    text = "x" * 15_000
    count = _send_buffer_max() // len(text) + 100  # past the server's send buffer and more
    async with watch(server.client, "alice", conversation_id) as stream:
        written = [await _post(db, conversation_id, f"{i} {text}") for i in range(count)]
        got = await take(stream, count, kinds={"message"})
    assert [int(e.id) for e in got] == written
    transport.resume_reading()
    await eventually(lambda: _truthy(len(stalled.ids()) >= count), within=60)
    assert stalled.ids() == written
    transport.close()


async def _truthy(value: bool) -> bool:
    return value
