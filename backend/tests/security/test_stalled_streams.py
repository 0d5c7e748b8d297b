"""Clients that open event streams and never read them. The server queued every message
for each of them, for as long as the connection stayed open (+136 MiB with a few hundred
such streams): nothing came back. Now what one stream holds is bounded, and a stream whose
socket stays backed up is dropped (reset, so the server lets go of its buffers); a client
still there reconnects with Last-Event-ID and loses nothing. A normal reader beside them
gets every message."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import struct
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from parley.db import Database
from tests.conftest import Server, eventually, token_for
from tests.realtime.sse import events, take
from tests.runs.helpers import Actor

TCP_CLOSE = 7  # tcpi_state once the server's reset has arrived


async def never_reading(server: Server, path: str, count: int) -> list[socket.socket]:
    """`count` connections asking for `path` as a browser would, that never read a byte
    (a tiny receive buffer, so the server's side backs up soon)."""
    parts = urlsplit(server.base_url)
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer {token_for('alice')}\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    opened = []
    for _ in range(count):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await loop.sock_connect(sock, (parts.hostname, parts.port))
        await loop.sock_sendall(sock, request)
        opened.append(sock)
    return opened


def reset(sock: socket.socket) -> bool:
    """The server ended this connection (without this client reading anything)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return struct.unpack("B", info[:1])[0] == TCP_CLOSE


async def was_reset(sock: socket.socket) -> bool:
    return reset(sock)


@contextlib.asynccontextmanager
async def reading(server: Server, path: str, kinds: set[str]) -> AsyncIterator[list[Any]]:
    """A client that reads its stream as it comes: the events of `kinds` it got so far."""
    got: list[Any] = []
    headers = server.headers("alice")
    async with (
        httpx.AsyncClient(base_url=server.base_url, timeout=120) as client,
        client.stream("GET", path, headers=headers) as response,
    ):
        assert response.status_code == 200

        async def read() -> None:
            async for event in events(response):
                if event.event in kinds:
                    got.append(event)

        task = asyncio.create_task(read())
        try:
            yield got
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await task


async def stored_ids(db: Database, conversation_id: int) -> list[int]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id FROM messages WHERE conversation_id = $1 ORDER BY id", conversation_id
        )
    return [r["id"] for r in rows]


async def test_streams_that_never_read_are_bounded_and_dropped_and_a_reader_gets_all(
    make_server: Any, db: Database
) -> None:
    """Long messages into a chat whose replies stream live: once a stalled stream's queue is
    full it is handed nothing more, and the next live event (which cannot wait for it in the
    database) drops it. No clock is involved: the stall deadline is far away."""
    async with make_server(PARLEY_SSE_BACKLOG_BYTES=16384, PARLEY_SSE_STALL_SECONDS=600) as server:
        hub = server.app.services.hub
        first = await server.chat("alice", "list my tasks")
        conversation = first.json()["conversation_id"]
        path = f"/api/alice/conversations/{conversation}/events"
        stalled = await never_reading(server, path, 8)
        async with reading(server, path, {"message"}) as got:

            async def everyone_watches() -> bool:
                return hub.watchers(conversation) == 9

            await eventually(everyone_watches)
            turns = 0
            while hub.watchers(conversation) > 1:
                assert turns < 150, f"{hub.watchers(conversation)} still watching"
                long = f"add a task to read chapter {turns}: " + "x" * 12000
                assert (await server.chat("alice", long, conversation)).status_code == 200
                turns += 1
            done = await server.chat("alice", "list my tasks", conversation)
            assert done.status_code == 200
            ids = await stored_ids(db, conversation)

            async def all_read() -> bool:
                return [int(e.id) for e in got][-1:] == ids[-1:]

            await eventually(all_read, within=60)
            assert [int(e.id) for e in got] == ids[2:]  # every message after it joined
        for sock in stalled:
            await eventually(functools.partial(was_reset, sock))
            sock.close()
        # A dropped client reconnects from the last id it had and loses nothing.
        headers = {**server.headers("alice"), "Last-Event-ID": str(ids[2])}
        async with server.client.stream("GET", path, headers=headers) as response:
            again = await take(events(response), len(ids) - 3, kinds={"message"})
        assert [int(e.id) for e in again] == ids[3:]


async def test_a_stream_backed_up_past_the_stall_deadline_is_dropped(
    make_server: Any, db: Database
) -> None:
    """The person's own stream and a run's, never read, while tasks and run messages keep
    coming: each is dropped once a write to it has waited `PARLEY_SSE_STALL_SECONDS`."""
    async with make_server(PARLEY_SSE_STALL_SECONDS=1) as server:
        hub = server.app.services.hub
        agent = Actor(server, "alice", "worker")
        person = Actor(server, "alice")
        run = await agent.start_run("Long job")
        path = f"/api/alice/conversations/{run['conversation_id']}/events"
        stalled_person = await never_reading(server, "/api/alice/events", 4)
        stalled_run = await never_reading(server, path, 4)
        async with (
            reading(server, "/api/alice/events", {"task"}) as tasks_seen,
            reading(server, path, {"message"}) as messages_seen,
        ):

            async def watching() -> bool:
                return hub.watchers(run["conversation_id"]) == 5

            await eventually(watching)
            made: set[int] = set()
            posted: list[int] = []
            rounds = 0
            while not all(map(reset, stalled_person + stalled_run)):
                assert rounds < 400, "the stalled streams are still open"
                task = await person.ok(
                    "POST", "/tasks", 201, json={"title": f"t{rounds}", "description": "d" * 5000}
                )
                made.add(task["number"])
                message = await agent.post(f"/runs/{run['id']}/messages", "m" * 12000)
                posted.append(message["id"])
                rounds += 1
            assert hub.watchers(run["conversation_id"]) == 1  # the reader alone

            async def all_read() -> bool:
                numbers = {e.json()["number"] for e in tasks_seen}
                return made <= numbers and posted[-1] in [int(e.id) for e in messages_seen]

            await eventually(all_read, within=60)
            assert [int(e.id) for e in messages_seen] == posted
        for sock in stalled_person + stalled_run:
            sock.close()
