"""200 concurrent turns on 200 conversations against a model that sleeps 1 s per call.

With nothing blocking the event loop, the turns' model sleeps overlap and the whole burst
takes ~1 s plus the server's own work for 200 turns."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from lib import (
    VENV_BIN,
    BenchDatabase,
    CpuMeter,
    ServerProcess,
    auth,
    client,
    create_conversation,
    pct,
)


async def burst(
    base_url: str,
    *,
    n: int,
    rounds: int,
    tag: str,
    server_pid: int,
    pgdata: Path | None,
    message: str = "hello",
) -> list[dict[str, Any]]:
    users = [f"bench-burst-{tag}-{i}" for i in range(n)]
    headers = [auth(u) for u in users]
    clients = [client(base_url) for _ in users]
    try:
        # Creating the conversations also opens each client's keep-alive connection, so the
        # measured rounds time turns, not TCP handshakes.
        cids = await asyncio.gather(
            *(create_conversation(c, u) for c, u in zip(clients, users, strict=True))
        )
        results = []
        for _ in range(rounds):
            latencies: list[float] = []
            statuses: list[int] = []

            async def turn(
                i: int, latencies: list[float] = latencies, statuses: list[int] = statuses
            ) -> None:
                t0 = time.perf_counter()
                r: httpx.Response = await clients[i].post(
                    f"/api/{users[i]}/chat",
                    json={"conversation_id": cids[i], "message": message},
                    headers=headers[i],
                )
                latencies.append(time.perf_counter() - t0)
                statuses.append(r.status_code)

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
        await asyncio.gather(*(c.aclose() for c in clients))


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
