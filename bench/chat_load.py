"""Chat turns through real HTTP: closed-loop workers, one user and one conversation each
(concurrent turns on one conversation get 409 by design)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvloop

from lib import (
    BenchDatabase,
    CpuMeter,
    LeanClient,
    ServerProcess,
    auth,
    client,
    create_conversation,
    ms,
    pct,
)


async def chat_load(
    base_url: str,
    *,
    concurrency: int,
    turns_per_worker: int,
    warmup_per_worker: int,
    message: str,
    tag: str,
    server_pid: int,
    pgdata: Path | list[Path] | None,
    lean: bool = False,
) -> dict[str, Any]:
    """`lean`: the turns go through `LeanClient` instead of httpx."""
    latencies: list[float] = []
    ready = asyncio.Barrier(concurrency + 1)
    done = asyncio.Barrier(concurrency + 1)

    async def worker(i: int) -> None:
        user = f"bench-{tag}-c{concurrency}-{i}{'-lean' if lean else ''}"
        headers = auth(user)
        async with client(base_url) as cl:
            cid = await create_conversation(cl, user)
            path = f"/api/{user}/chat"
            if lean:
                body = json.dumps({"conversation_id": cid, "message": message}).encode()
                async with LeanClient(base_url) as lc:

                    async def send() -> tuple[int, bytes]:
                        return await lc.post_json(path, body, headers)

                    await run(send)
            else:

                async def send() -> tuple[int, bytes]:
                    r = await cl.post(
                        path, json={"conversation_id": cid, "message": message}, headers=headers
                    )
                    return r.status_code, r.content

                await run(send)

    async def run(send: Any) -> None:
        async def turn() -> float:
            t0 = time.perf_counter()
            status, content = await send()
            elapsed = time.perf_counter() - t0
            if status != 200:
                raise RuntimeError(f"chat turn failed: {status} {content[:300]!r}")
            return elapsed

        for _ in range(warmup_per_worker):
            await turn()
        await ready.wait()
        for _ in range(turns_per_worker):
            latencies.append(await turn())
        await done.wait()

    workers = [asyncio.create_task(worker(i)) for i in range(concurrency)]
    await ready.wait()
    with CpuMeter(server_pid, pgdata) as meter:
        await done.wait()
    await asyncio.gather(*workers)
    n = len(latencies)
    return {
        "concurrency": concurrency,
        "client": "lean HTTP/1.1" if lean else "httpx",
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


def load(server: ServerProcess, db: BenchDatabase, **kwargs: Any) -> dict[str, Any]:
    """`chat_load` against a bench server, counting its CPU and PostgreSQL's."""
    return asyncio.run(
        chat_load(server.base_url, server_pid=server.pid, pgdata=db.pgdata, **kwargs)
    )


def paired_ratios(
    db: BenchDatabase, message: str, *, quick: bool, progress: Callable[[str], None]
) -> list[dict[str, Any]]:
    """The floor, then the server at concurrency 1 through the lean client and httpx, in
    interleaved pairs (the floor drifts between runs on a shared machine)."""
    from floor import measure_floor

    turns = 30 if quick else 150
    server = ServerProcess(db, name="pairs").start()
    pairs = []
    try:
        for i in range(1 if quick else 5):
            f = uvloop.run(measure_floor(message, warmup=20, turns=turns))
            runs = {
                lean: load(
                    server,
                    db,
                    concurrency=1,
                    turns_per_worker=turns,
                    warmup_per_worker=20,
                    message=message,
                    tag=f"pair{i}",
                    lean=lean,
                )
                for lean in (True, False)
            }
            pairs.append(
                {
                    "turns": turns,
                    "floor_p50": f["p50"],
                    "lean_p50": runs[True]["p50"],
                    "httpx_p50": runs[False]["p50"],
                    "lean": runs[True]["p50"] / f["p50"],
                    "httpx": runs[False]["p50"] / f["p50"],
                }
            )
            progress(
                f"   pair {i + 1}: floor {ms(f['p50'])}, lean {ms(runs[True]['p50'])}, httpx {ms(runs[False]['p50'])}"
            )
    finally:
        server.stop()
    return pairs
