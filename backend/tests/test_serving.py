"""Abuse refused early, at the connection: oversized bodies, slow or half-sent requests,
and too many connections from one client. Spoken over raw sockets, because a
well-behaved HTTP client cannot misbehave on purpose."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlsplit

import httpx

from tests.conftest import eventually, token_for

MB = 1024 * 1024


async def _connect(base_url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    url = urlsplit(base_url)
    return await asyncio.open_connection(url.hostname, url.port)


def _head(method: str, path: str, user: str = "alice", **headers: str) -> bytes:
    lines = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: Bearer {token_for(user)}",
    ]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _response(reader: asyncio.StreamReader, within: float = 5.0) -> tuple[int, dict, bytes]:
    """Status, headers and body of one response; then the connection must be closed."""
    raw = await asyncio.wait_for(reader.read(), timeout=within)  # reads until EOF: closed
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


def _error_code(headers: dict, body: bytes) -> str:
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["message"]
    return str(error["code"])


async def test_a_declared_50_mb_body_is_refused_before_it_is_read(server, db):
    reader, writer = await _connect(server.base_url)
    writer.write(
        _head(
            "POST", "/api/alice/chat", Content_Type="application/json", Content_Length=str(50 * MB)
        )
    )
    writer.write(b'{"message": "' + b"x" * 65536)
    await writer.drain()
    started = time.monotonic()
    status, headers, body = await _response(reader)
    assert status == 413 and _error_code(headers, body) == "body_too_large"
    assert time.monotonic() - started < 5  # answered while 49.9 MB were still unsent
    writer.close()
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM messages") == 0


async def test_a_chunked_body_is_cut_off_once_it_passes_the_cap(server):
    reader, writer = await _connect(server.base_url)
    writer.write(
        _head(
            "POST", "/api/alice/tasks", Content_Type="application/json", Transfer_Encoding="chunked"
        )
    )
    answer = asyncio.create_task(reader.read(4096))  # read while sending, as clients do
    chunk = b"x" * 65536
    sent = 0
    try:
        while sent < 50 * MB and not answer.done():
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await asyncio.wait_for(writer.drain(), timeout=5)
            sent += len(chunk)
    except (ConnectionError, TimeoutError):
        pass
    first = await asyncio.wait_for(answer, timeout=5)
    assert first.startswith(b"HTTP/1.1 413 "), first[:100]
    assert b"body_too_large" in first
    # The server stopped reading soon after the cap; only socket buffers took more.
    assert sent < 20 * MB, sent
    writer.close()


async def test_a_body_at_the_cap_is_read_as_usual(make_server):
    async with make_server(PARLEY_MAX_BODY_BYTES=200) as server:
        body = {"title": "t" * 150}
        ok = await server.client.post(
            "/api/alice/tasks", json=body, headers=server.headers("alice")
        )
        assert ok.status_code == 201, ok.text
        too_big = await server.client.post(
            "/api/alice/tasks", json={"title": "t" * 200}, headers=server.headers("alice")
        )
        assert too_big.status_code == 413
        assert too_big.json()["error"]["code"] == "body_too_large"


async def test_half_sent_requests_are_timed_out_and_closed(make_server):
    async with make_server(PARLEY_HEADER_TIMEOUT=1, PARLEY_BODY_TIMEOUT=1) as server:
        # nothing at all
        silent = await _connect(server.base_url)
        # half the headers
        half = await _connect(server.base_url)
        half[1].write(b"POST /api/alice/chat HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        # headers a byte at a time, never finished (each byte well within any idle limit)
        dribble = await _connect(server.base_url)
        # headers complete, body half sent
        body = await _connect(server.base_url)
        body[1].write(
            _head("POST", "/api/alice/chat", Content_Type="application/json", Content_Length="100")
            + b'{"message": "'
        )

        async def drip() -> None:
            for byte in b"POST /api/alice/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 99:
                dribble[1].write(bytes([byte]))
                await asyncio.sleep(0.2)

        dripping = asyncio.create_task(drip())
        started = time.monotonic()
        results = await asyncio.gather(
            *(_response(reader, within=8) for reader, _ in (silent, half, dribble, body)),
            return_exceptions=True,
        )
        dripping.cancel()
        elapsed = time.monotonic() - started
        for result in results:
            assert not isinstance(result, BaseException), result
            status, headers, content = result
            assert status == 408 and _error_code(headers, content) == "request_timeout"
        assert elapsed < 5
        # the server still serves everyone else
        health = await server.client.get("/api/health")
        assert health.status_code == 200


async def test_idle_keep_alive_connections_are_closed(make_server):
    async with make_server(PARLEY_KEEPALIVE_TIMEOUT=1) as server:
        reader, writer = await _connect(server.base_url)
        writer.write(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        status, _, _ = await _response(reader, within=5)  # answered, then closed when idle
        assert status == 200


async def test_a_long_stream_is_not_a_slow_request(make_server):
    """The deadlines cover reading a request, never a reply that takes its time."""
    async with make_server(
        PARLEY_HEADER_TIMEOUT=0.5, PARLEY_BODY_TIMEOUT=0.5, PARLEY_SSE_PING_SECONDS=0.3
    ) as server:
        chat = await server.chat("alice", "list my tasks")
        url = f"/api/alice/conversations/{chat.json()['conversation_id']}/events"
        lines = 0
        async with server.client.stream("GET", url, headers=server.headers("alice")) as stream:
            assert stream.status_code == 200
            deadline = time.monotonic() + 2
            async for _ in stream.aiter_lines():
                lines += 1
                if time.monotonic() > deadline:
                    break
        assert time.monotonic() >= deadline and lines > 2


async def test_connections_per_client_are_capped(make_server):
    async with make_server(PARLEY_MAX_CONNECTIONS_PER_CLIENT=3) as server:
        held = [await _connect(server.base_url) for _ in range(3)]
        reader, writer = await _connect(server.base_url)
        status, headers, body = await _response(reader)
        assert status == 429 and _error_code(headers, body) == "too_many_connections"
        writer.close()
        # one of the three goes away: a new connection is served again
        held.pop()[1].close()

        async def served() -> bool:  # once the server has seen it go
            async with httpx.AsyncClient(base_url=server.base_url) as fresh:
                return (await fresh.get("/api/health")).status_code == 200

        await eventually(served)
        for _, w in held:
            w.close()


async def test_oversized_headers_are_refused(server):
    reader, writer = await _connect(server.base_url)
    writer.write(_head("GET", "/api/health", X_Big="h" * (80 * 1024)))
    await writer.drain()
    status, headers, body = await _response(reader)
    assert status == 431 and _error_code(headers, body) == "headers_too_large"
