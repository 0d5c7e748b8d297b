"""200 concurrent turns on 200 conversations against a model that sleeps 1 s per call.

With nothing blocking the event loop, the turns' model sleeps overlap and the whole burst
takes ~1 s plus the server's own work for 200 turns."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from lib import (
    VENV_BIN,
    BenchDatabase,
    CpuMeter,
    LeanClient,
    ServerProcess,
    auth,
    pct,
)


async def burst(
    base_url: str,
    *,
    n: int,
    rounds: int,
    tag: str,
    server_pid: int,
    pgdata: Path | list[Path] | None,
    message: str = "hello",
) -> list[dict[str, Any]]:
    users = [f"bench-burst-{tag}-{i}" for i in range(n)]
    headers = [auth(u) for u in users]
    # The lean client (bench/lib.py): ~0.2 ms of CPU a request against httpx's ~1.3 ms, so
    # sending 200 requests at once does not take the machine's CPU from the server measured.
    clients = [LeanClient(base_url) for _ in users]
    try:
        # Creating the conversations also opens each client's keep-alive connection, so the
        # measured rounds time turns, not TCP handshakes.
        await asyncio.gather(*(c.__aenter__() for c in clients))

        async def create(i: int) -> int:
            status, body = await clients[i].post_json(
                f"/api/{users[i]}/conversations", b"{}", headers[i]
            )
            assert status == 201, body
            return int(json.loads(body)["id"])

        cids = await asyncio.gather(*(create(i) for i in range(n)))
        results = []
        for _ in range(rounds):
            latencies: list[float] = []
            statuses: list[int] = []

            async def turn(
                i: int, latencies: list[float] = latencies, statuses: list[int] = statuses
            ) -> None:
                body = json.dumps({"conversation_id": cids[i], "message": message}).encode()
                t0 = time.perf_counter()
                status, _ = await clients[i].post_json(f"/api/{users[i]}/chat", body, headers[i])
                latencies.append(time.perf_counter() - t0)
                statuses.append(status)

            with CpuMeter(server_pid, pgdata) as meter:
                await asyncio.gather(*(turn(i) for i in range(n)))
            bad = [s for s in statuses if s != 200]
            results.append(
                {
                    "wall": meter.wall,
                    "min": min(latencies),
                    "p50": pct(latencies, 50),
                    "p99": pct(latencies, 99),
                    "max": max(latencies),
                    "errors": len(bad),
                    "error_statuses": sorted(set(bad)),
                    "server_cpu": meter.used["server"].cpu,
                    "server_runqueue_wait": meter.used["server"].runqueue_wait,
                    "postgres_cpu": meter.used["postgres"].cpu,
                    "client_cpu": meter.used["client"].cpu,
                }
            )
        return results
    finally:
        await asyncio.gather(*(c.__aexit__(None, None, None) for c in clients))


def burst_diagnosis(db: BenchDatabase, n: int, env: dict[str, str]) -> dict[str, Any]:
    command = [
        str(VENV_BIN / "python"),
        str(Path(__file__).resolve().parent / "_instrumented_server.py"),
    ]
    server = ServerProcess(db, name="burst-instrumented", env=env, command=command).start()
    rounds: list[dict[str, Any]] = []
    stats: list[dict[str, Any]] = []
    try:
        for i in range(2):
            httpx.get(server.base_url + "/__bench/stats?reset=true", timeout=10)
            res = asyncio.run(
                burst(
                    server.base_url,
                    n=n,
                    rounds=1,
                    tag=f"bi{i}",
                    server_pid=server.pid,
                    pgdata=db.pgdata,
                )
            )
            stats.append(
                httpx.get(server.base_url + "/__bench/stats?reset=true", timeout=10).json()
            )
            rounds.extend(res)
    finally:
        server.stop()
    return {"rounds": rounds, "stats": stats}
