"""Chat turns through real HTTP: closed-loop workers, one user and one conversation each
(concurrent turns on one conversation get 409 by design)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx

from lib import CpuMeter, auth, client, create_conversation, pct


async def _turn(cl: httpx.AsyncClient, user: str, headers: dict[str, str], cid: int, message: str) -> float:
    t0 = time.perf_counter()
    r = await cl.post(f"/api/{user}/chat", json={"conversation_id": cid, "message": message}, headers=headers)
    elapsed = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"chat turn failed: {r.status_code} {r.text[:300]}")
    return elapsed


async def chat_load(base_url: str, *, concurrency: int, turns_per_worker: int, warmup_per_worker: int,
                    message: str, tag: str, server_pid: int, pgdata: Path | None) -> dict[str, Any]:
    latencies: list[float] = []
    ready = asyncio.Barrier(concurrency + 1)
    done = asyncio.Barrier(concurrency + 1)

    async def worker(i: int) -> None:
        user = f"bench-{tag}-c{concurrency}-{i}"
        headers = auth(user)
        async with client(base_url) as cl:
            cid = await create_conversation(cl, user)
            for _ in range(warmup_per_worker):
                await _turn(cl, user, headers, cid, message)
            await ready.wait()
            for _ in range(turns_per_worker):
                latencies.append(await _turn(cl, user, headers, cid, message))
            await done.wait()

    workers = [asyncio.create_task(worker(i)) for i in range(concurrency)]
    await ready.wait()
    with CpuMeter(server_pid, pgdata) as meter:
        await done.wait()
    await asyncio.gather(*workers)
    n = len(latencies)
    return {
        "concurrency": concurrency,
        "turns": n,
        "p50": pct(latencies, 50),
        "p99": pct(latencies, 99),
        "throughput": n / meter.wall,
        "wall": meter.wall,
        "server_cpu_per_turn": meter.used["server"].cpu / n,
        "postgres_cpu_per_turn": meter.used["postgres"].cpu / n,
        "client_cpu_per_turn": meter.used["client"].cpu / n,
        "server_cpu_util": meter.used["server"].cpu / meter.wall,
        "client_cpu_util": meter.used["client"].cpu / meter.wall,
        "postgres_cpu_util": meter.used["postgres"].cpu / meter.wall,
        "server_runqueue_wait": meter.used["server"].runqueue_wait,
    }
