"""Web Push: from an agent's question being stored to its push request reaching each of the
person's devices' push service, with many devices.

One person subscribes N devices (500; each its own P-256 key and endpoint at a local push
service this process runs on loopback). Their agent asks questions one after another
(`POST /api/{user}/inbox/messages`, kind question); each question is one encrypted push per
device (RFC 8291) posted by the server's sender. Delay = from the agent's POST returning (the
question is stored) to the push service receiving the device's request. The POST's own time
shows that pushing never holds the question up. Run alone: `.venv/bin/python bench/push.py`.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from pathlib import Path
from typing import Any

import httptools
import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from lib import BenchDatabase, CpuMeter, ServerProcess, auth, free_port, ms, pct, run_alone

USER = "bench-push"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _keys() -> dict[str, str]:
    public = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": _b64(public), "auth": _b64(os.urandom(16))}


class PushService:
    """Receives pushes and notes when each arrived (it does not decrypt: the tests do).

    A bare HTTP/1.1 server (asyncio protocol + httptools, keep-alive) rather than an ASGI app:
    it shares the machine with the server it measures, so its own cost per request must be
    small next to the sender's, or the bench would time the fake push service.
    """

    _CREATED = b"HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n"

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.arrivals: list[float] = []
        self.done = asyncio.Event()

    def arrived(self) -> None:
        self.arrivals.append(time.perf_counter())
        if len(self.arrivals) >= self.expected:
            self.done.set()

    def protocol(self) -> asyncio.Protocol:
        service = self

        class Connection(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                assert isinstance(transport, asyncio.Transport)
                self.transport = transport
                self.parser = httptools.HttpRequestParser(self)

            def data_received(self, data: bytes) -> None:
                try:
                    self.parser.feed_data(data)
                except httptools.HttpParserError:
                    self.transport.close()

            def on_message_complete(self) -> None:
                service.arrived()
                self.transport.write(PushService._CREATED)

        return Connection()


async def measure(
    server: ServerProcess,
    port: int,
    *,
    devices: int,
    questions: int,
    pgdata: Path | list[Path] | None,
) -> dict[str, Any]:
    service = PushService(devices)
    fake = await asyncio.get_running_loop().create_server(service.protocol, "127.0.0.1", port)
    delays: list[float] = []
    posts: list[float] = []
    try:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
            person = auth(USER)
            for start in range(0, devices, 50):
                made = await asyncio.gather(
                    *(
                        http.post(
                            f"/api/{USER}/push-subscriptions",
                            json={
                                "endpoint": f"http://127.0.0.1:{port}/push/{i}",
                                "keys": _keys(),
                            },
                            headers=person,
                        )
                        for i in range(start, min(start + 50, devices))
                    )
                )
                for response in made:
                    response.raise_for_status()
            agent = auth(USER, "bench-agent")
            meter = CpuMeter(server.pid, pgdata).__enter__()
            for n in range(questions):
                service.arrivals.clear()
                service.done.clear()
                began = time.perf_counter()
                response = await http.post(
                    f"/api/{USER}/inbox/messages",
                    json={"text": f"Deploy build {n}?", "kind": "question"},
                    headers=agent,
                )
                stored = time.perf_counter()
                response.raise_for_status()
                posts.append(stored - began)
                await asyncio.wait_for(service.done.wait(), 60)
                delays.extend(at - stored for at in service.arrivals)
            meter.__exit__()
    finally:
        fake.close()
        await fake.wait_closed()
    pushes = devices * questions
    return {
        "devices": devices,
        "questions": questions,
        "delays": delays,
        "posts": posts,
        # CPU per push (the question's own request included) and how long the server's
        # threads stood runnable waiting for a core: what a busy machine adds.
        "server_cpu_per_push": meter.used["server"].cpu / pushes,
        "postgres_cpu_per_push": meter.used["postgres"].cpu / pushes,
        "server_runqueue_wait": meter.used["server"].runqueue_wait,
        "wall": meter.wall,
        "load": os.getloadavg()[0],
    }


def measure_push(db: BenchDatabase, quick: bool) -> dict[str, Any]:
    devices, questions = (50, 3) if quick else (500, 10)
    port = free_port()
    server = ServerProcess(
        db, name="push", env={"PARLEY_PUSH_ALLOWED_HOSTS": f"127.0.0.1:{port}"}
    ).start()
    try:
        return asyncio.run(
            measure(server, port, devices=devices, questions=questions, pgdata=db.pgdata)
        )
    finally:
        server.stop()


def show(found: dict[str, Any]) -> None:
    d = found["delays"]
    print(
        f"{found['devices']} devices x {found['questions']} questions: stored -> push received"
        f" p50 {ms(pct(d, 50))}, p99 {ms(pct(d, 99))}, max {ms(max(d))};"
        f" question POST p50 {ms(pct(found['posts'], 50))}; server CPU"
        f" {ms(found['server_cpu_per_push'])}/push (postgres {ms(found['postgres_cpu_per_push'])}),"
        f" server waited {found['server_runqueue_wait']:.2f} s of {found['wall']:.2f} s"
        f" for a core; load average {found['load']:.2f}"
    )


if __name__ == "__main__":
    raise SystemExit(run_alone(__doc__, measure_push, show))
