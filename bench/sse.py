"""Realtime: delta → SSE client delay, fan-out of a new message to 1,000 subscribers, and
the server's memory per idle stream.

The SSE clients here are a minimal asyncio protocol (HTTP/1.1, chunked decoding, SSE
framing) that stamps each event with the time its last byte arrived, so the figures are
the server's and the network's, not a client library's."""

from __future__ import annotations

import asyncio
import gc
import json
import time
from pathlib import Path
from typing import Any

from lib import (
    HOST,
    VENV_BIN,
    BenchDatabase,
    ServerProcess,
    auth,
    client,
    create_conversation,
    server_pair,
)

FANOUT = 1000
WIDE = 10_000  # the fan-out over two instances
MEMORY_STREAMS = 200


class SSEClient(asyncio.Protocol):
    """One SSE request; `events` collects (arrival ns, event, id, data)."""

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.raw = b""
        self.body = b""
        self.status: int | None = None
        self.chunked = False
        self.events: list[tuple[int, str, str | None, str]] = []
        self.headers_received = asyncio.get_running_loop().create_future()
        self.closed = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.waiters: list[tuple[str, asyncio.Future[None]]] = []
        # Deferred: data kept with its arrival time and parsed after the measurement (`flush`),
        # so reading 1,000 sockets in turn costs this process microseconds per socket, not the
        # tens of microseconds of parsing each, which the last socket read would count as delay.
        self.deferred: list[tuple[int, bytes]] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        now = time.monotonic_ns()
        if self.deferred is not None and self.status is not None:
            self.deferred.append((now, data))
            return
        self._parse(now, data)

    def defer(self) -> None:
        self.deferred = []

    def flush(self) -> None:
        deferred, self.deferred = self.deferred or [], None
        for now, data in deferred:
            self._parse(now, data)

    def _parse(self, now: int, data: bytes) -> None:
        self.raw += data
        if self.status is None:
            head, sep, rest = self.raw.partition(b"\r\n\r\n")
            if not sep:
                return
            lines = head.decode("latin-1").split("\r\n")
            self.status = int(lines[0].split()[1])
            self.chunked = any(
                line.lower().startswith("transfer-encoding:") and "chunked" in line.lower()
                for line in lines
            )
            self.raw = rest
            if not self.headers_received.done():
                self.headers_received.set_result(None)
        if self.chunked:
            while True:
                size_line, sep, rest = self.raw.partition(b"\r\n")
                if not sep:
                    break
                size = int(size_line.split(b";")[0], 16)
                if len(rest) < size + 2:
                    break
                if size == 0:  # the last chunk: the response is complete
                    self.raw = b""
                    if not self.closed.done():
                        self.closed.set_result(None)
                    break
                self.body += rest[:size]
                self.raw = rest[size + 2 :]
        else:
            self.body += self.raw
            self.raw = b""
        self.body = self.body.replace(b"\r\n", b"\n")
        while b"\n\n" in self.body:
            block, _, self.body = self.body.partition(b"\n\n")
            event, event_id, data = "message", None, []
            for line in block.decode().split("\n"):
                if line.startswith(":"):
                    continue
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "event":
                    event = value
                elif field == "id":
                    event_id = value
                elif field == "data":
                    data.append(value)
            if data:
                self.events.append((now, event, event_id, "\n".join(data)))
                for wanted, fut in self.waiters:
                    if wanted == event and not fut.done():
                        fut.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.headers_received.done():
            self.headers_received.set_exception(exc or ConnectionError("closed before headers"))
        if not self.closed.done():
            self.closed.set_result(None)

    def wait_for(self, event: str) -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append((event, fut))
        return fut

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _request(
    method: str,
    path: str,
    user: str,
    port: int,
    body: dict[str, Any] | None = None,
    extra: dict[str, str] | None = None,
) -> bytes:
    headers = {
        "Host": f"{HOST}:{port}",
        "Accept": "text/event-stream",
        "Connection": "close",
        **auth(user),
        **(extra or {}),
    }
    payload = b""
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
        headers["Content-Length"] = str(len(payload))
    head = (
        f"{method} {path} HTTP/1.1\r\n"
        + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        + "\r\n"
    )
    return head.encode() + payload


async def open_sse(
    port: int,
    method: str,
    path: str,
    user: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> SSEClient:
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(
        lambda: SSEClient(_request(method, path, user, port, body, headers)), HOST, port
    )
    await proto.headers_received
    if proto.status != 200:
        raise RuntimeError(f"{method} {path}: HTTP {proto.status}")
    return proto


# ---------------------------------------------------------------------------- delta delay


async def _turn(port: int, user: str, cid: int) -> SSEClient:
    stream = await open_sse(
        port, "POST", f"/api/{user}/chat", user, {"conversation_id": cid, "message": "hello"}
    )
    await asyncio.wait_for(stream.closed, timeout=60)
    kinds = [e[1] for e in stream.events]
    if "done" not in kinds:
        raise RuntimeError(f"streamed turn did not finish: {kinds[-3:]}")
    return stream


async def delta_delay(port: int, base_url: str, *, turns: int, warmup: int = 3) -> dict[str, Any]:
    user = "bench-sse-delta"
    async with client(base_url) as cl:
        cid = await create_conversation(cl, user)
    for _ in range(warmup):  # the first turns of a fresh process run one-time code paths
        await _turn(port, user, cid)
    watcher = await open_sse(port, "GET", f"/api/{user}/conversations/{cid}/events", user)
    await asyncio.sleep(0.5)  # let the watcher's subscription settle
    turn_delays: list[float] = []
    last_delays: list[float] = []
    for _ in range(turns):
        stream = await _turn(port, user, cid)
        delays = [
            (t - int(json.loads(d)["text"])) / 1e9 for t, e, _, d in stream.events if e == "delta"
        ]
        turn_delays += delays
        last_delays.append(delays[-1])
    await asyncio.sleep(0.3)
    watcher.close()
    watch_delays = [
        (t - int(json.loads(d)["text"])) / 1e9 for t, e, _, d in watcher.events if e == "delta"
    ]
    return {"turn": turn_delays, "watcher": watch_delays, "last": last_delays}


# ---------------------------------------------------------------------------- fan-out


async def fanout(
    servers: ServerProcess | list[ServerProcess],
    db: BenchDatabase,
    *,
    subscribers: int,
    messages: int,
    idle: float = 3.0,
    spacing: float = 0.4,
    batch: int = 100,
) -> dict[str, Any]:
    """`subscribers` streams of one conversation, spread in turn over `servers` (instances on
    one database), then `messages` stored `spacing` s apart by a writer outside them all."""
    from parley.db import Database
    from parley.messages import store as message_store
    from parley.models import Role
    from parley.realtime.hub import Hub, message_fetcher
    from parley.realtime.notifier import Notifier

    if not isinstance(servers, list):
        servers = [servers]
    user = f"bench-sse-fanout-{len(servers)}"
    path_of = "/api/{u}/conversations/{c}/events"
    async with client(servers[0].base_url) as cl:
        cid = await create_conversation(cl, user)
    path = path_of.format(u=user, c=cid)
    # Warm-up: the first streams allocate what every later one shares.
    warm = [await open_sse(s.port, "GET", path, user) for s in servers for _ in range(20)]
    await asyncio.sleep(0.5)
    for w in warm:
        w.close()
    await asyncio.sleep(1.0)
    rss0 = [s.rss() for s in servers]
    subs: list[SSEClient] = []
    on: list[int] = []  # which server each subscriber follows (its index in `servers`)
    t_open = time.perf_counter()
    # `batch` at a time: each subscription reads the DB once.
    for start in range(0, subscribers, batch):
        which = [(start + i) % len(servers) for i in range(min(batch, subscribers - start))]
        subs += await asyncio.gather(*(open_sse(servers[w].port, "GET", path, user) for w in which))
        on += which
    open_seconds = time.perf_counter() - t_open
    await asyncio.sleep(idle)  # idle: every subscription registered, nothing to send
    rss1 = [s.rss() for s in servers]
    # The 1,000 clients live in this process: a full collection of their objects would stall
    # this process's reading (tens of ms, counted as delivery delay). They are moved out of
    # the collector's generations, as `parley serve` does with its own start-up objects.
    gc.collect()
    gc.freeze()
    for s in subs:
        s.defer()

    db_ = await Database.connect(db.url, max_connections=1)
    # The agent writes as another Parley instance does: its reader finds the row and wakes
    # the other instances' readers (one NOTIFY, sent by the reader, not by the writer).
    writer_instance = Notifier(database_url=db.url, hub=Hub(message_fetcher(db_)))
    db_.on_release = writer_instance.nudge
    await writer_instance.start()
    committed: dict[str, int] = {}
    cpu0 = time.process_time()
    try:
        for i in range(messages):
            async with db_.transaction() as conn:
                stored = await message_store.append(
                    conn,
                    conversation_id=cid,
                    user_id=user,
                    role=Role.agent,
                    content=f"fan-out message {i}",
                    author="bench-agent",
                )
            committed[str(stored.id)] = time.monotonic_ns()  # the commit is done
            await asyncio.sleep(spacing)
        await asyncio.sleep(1.0)
    finally:
        client_cpu = time.process_time() - cpu0
        await writer_instance.stop()
        await db_.close()
    delays: list[float] = []
    by_server: list[list[float]] = [[] for _ in servers]
    complete = 0
    for s in subs:
        s.flush()
    for s, w in zip(subs, on, strict=True):
        got = {eid: t for t, e, eid, _ in s.events if e == "message" and eid in committed}
        complete += len(got) == len(committed)
        mine = [(t - committed[eid]) / 1e9 for eid, t in got.items()]
        delays += mine
        by_server[w] += mine
        s.close()
    gc.unfreeze()
    per_message_p99 = []
    first_per_message: list[float] = []
    for eid, t_commit in committed.items():
        arrivals = [
            (t - t_commit) / 1e9
            for s in subs
            for tt, e, i, _ in s.events
            if e == "message" and i == eid
            for t in [tt]
        ]
        per_message_p99.append(max(arrivals) if arrivals else float("nan"))
        first_per_message.append(min(arrivals) if arrivals else float("nan"))
    return {
        "subscribers": subscribers,
        "messages": messages,
        "delays": delays,
        "complete": complete,
        "open_seconds": open_seconds,
        "rss0": sum(rss0),
        "rss1": sum(rss1),
        "by_server": by_server,
        "client_cpu": client_cpu,
        "last_arrival_per_message": per_message_p99,
        "first_arrival_per_message": first_per_message,
    }


def measure_fanout_wide(db: BenchDatabase, quick: bool) -> dict[str, Any]:
    """Fan-out to `WIDE` watchers of one conversation spread over two instances (A and B, one
    database), the message written by a third party as in `fanout`. The benchmark's own
    10,000 sockets are read on uvloop (the plain loop's per-socket cost would be counted as
    the servers' delay)."""
    import uvloop

    subscribers = 200 if quick else WIDE
    with server_pair(db, "fanout-wide") as (a, b):
        result = uvloop.run(
            fanout(
                [a, b],
                db,
                subscribers=subscribers,
                messages=5 if quick else 10,
                idle=1.0 if quick else 3.0,
                spacing=0.4 if quick else 1.0,
                batch=100 if quick else 250,
            )
        )
    result["per_stream"] = (result["rss1"] - result["rss0"]) / subscribers
    return result


async def stream_memory(server: ServerProcess, *, streams: int) -> dict[str, Any]:
    """On the instrumented app: Python memory that `streams` idle event streams keep alive."""
    import httpx

    user = "bench-sse-memory"
    async with client(server.base_url) as cl:
        cid = await create_conversation(cl, user)
    path = f"/api/{user}/conversations/{cid}/events"
    warm = [await open_sse(server.port, "GET", path, user) for _ in range(20)]
    await asyncio.sleep(0.5)
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as cl:
        await cl.get("/__bench/memory", params={"action": "start"})
        rss0 = server.rss()
        subs: list[SSEClient] = []
        for start in range(0, streams, 100):
            subs += await asyncio.gather(
                *(
                    open_sse(server.port, "GET", path, user)
                    for _ in range(min(100, streams - start))
                )
            )
        await asyncio.sleep(2.0)
        rss1 = server.rss()
        report: dict[str, Any] = (await cl.get("/__bench/memory", params={"action": "stop"})).json()
    for s in subs + warm:
        s.close()
    report["rss_per_stream"] = (rss1 - rss0) / streams
    return report


# ---------------------------------------------------------------------------- measuring


def measure_sse(db: BenchDatabase, quick: bool) -> dict[str, Any]:
    """Every realtime figure, as data (run.py formats them): `delay` (per-delta delays of
    the stamp model's replies), `fanout` (deliveries to many subscribers, server RSS) and,
    only when an idle stream costs more than 50 KiB, `memory` (where it goes)."""
    turns = 3 if quick else 20
    deltas, interval = 50, 0.005
    here = Path(__file__).resolve().parent
    stamp = ServerProcess(
        db,
        name="sse-delta",
        command=[str(VENV_BIN / "python"), str(here / "_sse_server.py")],
        env={"BENCH_DELTAS": str(deltas), "BENCH_DELTA_INTERVAL": str(interval)},
    ).start()
    try:
        delay = asyncio.run(delta_delay(stamp.port, stamp.base_url, turns=turns))
    finally:
        if not quick:
            stamp.stop()
    subscribers = 50 if quick else FANOUT
    # The full run measures fan-out on a plain `parley serve`; the smoke run reuses the stamp
    # server (the same app) rather than wait for another to start.
    server = stamp if quick else ServerProcess(db, name="sse-fanout").start()
    try:
        spread = asyncio.run(
            fanout(
                server,
                db,
                subscribers=subscribers,
                messages=5 if quick else 10,
                idle=1.0 if quick else 3.0,
            )
        )
    finally:
        server.stop()
    spread["subscribers"] = subscribers
    spread["per_stream"] = (spread["rss1"] - spread["rss0"]) / subscribers
    memory = None
    if spread["per_stream"] > 50 * 1024:
        command = [str(VENV_BIN / "python"), str(here / "_instrumented_server.py")]
        inst = ServerProcess(db, name="sse-memory", command=command).start()
        try:
            memory = asyncio.run(stream_memory(inst, streams=MEMORY_STREAMS))
        finally:
            inst.stop()
    return {
        "delay": {**delay, "turns": turns, "deltas": deltas, "interval": interval},
        "fanout": spread,
        "memory": memory,
    }


async def live_notify_cost(url: str, n: int = 2000) -> float | None:
    """CPU per live event on the notifier's path: json.dumps, `SELECT pg_notify` on a connection
    that also LISTENs to the channel, and json.loads of the copy that comes back."""
    try:
        import asyncpg
        from parley.db import asyncpg_dsn
        from parley.realtime.notifier import LIVE_CHANNEL
    except ImportError:
        return None
    conn = await asyncpg.connect(asyncpg_dsn(url))
    received = 0

    def on_live(*args: Any) -> None:
        nonlocal received
        json.loads(args[3])
        received += 1

    try:
        await conn.add_listener(LIVE_CHANNEL, on_live)
        event = {
            "instance": "0" * 32,
            "conversation_id": 0,
            "event": "delta",
            "data": {"text": "word "},
        }
        for _ in range(100):
            await conn.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, json.dumps(event))
        await asyncio.sleep(0.2)
        cpu0 = time.process_time()
        for _ in range(n):
            await conn.execute("SELECT pg_notify($1, $2)", LIVE_CHANNEL, json.dumps(event))
        while received < n + 100:  # noqa: ASYNC110 (counted by a listener callback)
            await asyncio.sleep(0.01)
        return (time.process_time() - cpu0) / n
    finally:
        await conn.close()
