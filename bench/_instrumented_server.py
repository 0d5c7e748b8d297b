"""The same app `parley serve` runs, with event-loop instrumentation, for diagnosis only.

Differences from `parley serve`: no migrations (the bench has applied them) and the plain
asyncio loop instead of uvloop, because only its callbacks can be timed one by one.
Records, between two calls of GET /__bench/stats:
  - every event-loop callback's CPU and wall time: the longest ones (a blocking call shows
    up here as one long callback) and the total (how busy the loop was);
  - a 2 ms sleeper's lateness (how long a ready task waits for the loop);
  - every hop to the worker-thread pool (anyio.to_thread.run_sync), by function;
  - the database pool's connections in use (sampled every 2 ms), checkouts, transactions and
    SQL statements (an asyncpg query logger on every connection the app's pool hands out);
  - garbage-collector pauses by generation;
and, between GET /__bench/profile?action=start and ?action=stop, a cProfile of the loop
thread summed by package; between /__bench/memory?action=start and ?action=stop, the Python
memory allocated and still alive (tracemalloc), by package and line.
"""

from __future__ import annotations

import asyncio
import asyncio.events
import collections
import cProfile
import gc
import os
import pstats
import re
import time
import tracemalloc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
import uvicorn
from parley.api.app import create_app
from parley.config import get_settings

from lib import server_args


class Stats:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.t0 = time.perf_counter()
        self.callbacks = 0
        self.busy = 0.0
        self.longest: list[tuple[float, float, str]] = []
        self.threshold = 0.0
        self.busy_cpu = 0.0
        self.over_50ms = 0
        self.lateness: list[float] = []
        self.hops: collections.Counter[str] = collections.Counter()
        self.hop_time = 0.0
        self.pool_max = 0
        self.gc: dict[int, list[tuple[float, float]]] = {0: [], 1: [], 2: []}
        self.sql: collections.Counter[str] = collections.Counter()
        self.transactions: collections.Counter[str] = (
            collections.Counter()
        )  # BEGIN, COMMIT, ROLLBACK
        self.checkouts = 0
        self.objects_at_reset = len(gc.get_objects())
        self.live: collections.Counter[str] = collections.Counter()

    def note_callback(self, seconds: float, cpu: float, handle: Any) -> None:
        """Ranked by CPU time: under CPU contention a callback's wall time also counts the
        time the OS ran something else, which is not the callback's doing."""
        self.callbacks += 1
        self.busy += seconds
        self.busy_cpu += cpu
        self.over_50ms += cpu > 0.05
        if cpu > self.threshold or len(self.longest) < 10:
            cb = getattr(handle, "_callback", None)
            owner = getattr(cb, "__self__", None)
            if isinstance(owner, asyncio.Task):
                coro = owner.get_coro()
                name = f"task step of {getattr(coro, '__qualname__', repr(coro))}"
            else:
                name = getattr(cb, "__qualname__", repr(cb))
            self.longest.append((cpu, seconds, name))
            self.longest.sort(reverse=True)
            del self.longest[10:]
            self.threshold = self.longest[-1][0]

    def report(self) -> dict[str, Any]:
        wall = time.perf_counter() - self.t0
        late = sorted(self.lateness)
        return {
            "wall": wall,
            "callbacks": self.callbacks,
            "loop_busy": self.busy,
            "loop_busy_cpu": self.busy_cpu,
            "callbacks_over_50ms_cpu": self.over_50ms,
            "longest_callbacks": [{"cpu": c, "wall": s, "what": w} for c, s, w in self.longest],
            "sleeper_lateness_max": late[-1] if late else 0.0,
            "sleeper_lateness_p99": late[int(len(late) * 0.99)] if late else 0.0,
            "threadpool_hops": dict(self.hops),
            "threadpool_hop_wall": self.hop_time,
            "db_pool_max_in_use": self.pool_max,
            "gc": {
                str(g): {
                    "count": len(d),
                    "total": sum(w for w, _ in d),
                    "max": max((w for w, _ in d), default=0.0),
                    "total_cpu": sum(c for _, c in d),
                    "max_cpu": max((c for _, c in d), default=0.0),
                }
                for g, d in self.gc.items()
            },
            "sql_statements": dict(self.sql),
            "db_transactions": dict(self.transactions),
            "db_checkouts": self.checkouts,
            "gc_objects": {"at_reset": self.objects_at_reset, "now": len(gc.get_objects())},
            "live_events_published": dict(self.live),
        }


STATS = Stats()

_run = asyncio.events.Handle._run


def _timed_run(self: asyncio.events.Handle) -> None:
    t0, c0 = time.perf_counter(), time.thread_time()
    try:
        _run(self)
    finally:
        STATS.note_callback(time.perf_counter() - t0, time.thread_time() - c0, self)


asyncio.events.Handle._run = _timed_run  # type: ignore[method-assign]

_run_sync = anyio.to_thread.run_sync


async def _counted_run_sync(func: Any, *args: Any, **kwargs: Any) -> Any:
    target = getattr(func, "func", func)  # FastAPI hands over functools.partial objects
    STATS.hops[
        f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"
    ] += 1
    t0 = time.perf_counter()
    try:
        return await _run_sync(func, *args, **kwargs)
    finally:
        STATS.hop_time += time.perf_counter() - t0


anyio.to_thread.run_sync = _counted_run_sync  # type: ignore[assignment]

_gc_start = (0.0, 0.0)


def _on_gc(phase: str, info: dict[str, Any]) -> None:
    global _gc_start
    if phase == "start":
        _gc_start = (time.perf_counter(), time.thread_time())
    else:
        STATS.gc[info["generation"]].append(
            (time.perf_counter() - _gc_start[0], time.thread_time() - _gc_start[1])
        )


gc.callbacks.append(_on_gc)


def _statement_kind(statement: str) -> str:
    text = " ".join(statement.split())
    if re.match(r"^WITH\b", text, re.IGNORECASE):  # named by the statement after its CTEs
        main = re.search(r"\)\s*(INSERT INTO|UPDATE|DELETE FROM) (\w+)", text, re.IGNORECASE)
        if main:
            return f"WITH … {main[1].upper()} {main[2]}"
    call = re.match(r"^SELECT (\w+)\(", text, re.IGNORECASE)
    if call:
        return f"SELECT {call[1]}(…)"
    for pattern in (r"^(INSERT INTO|UPDATE|DELETE FROM) (\w+)", r"^(SELECT)\b.*? FROM (\w+)"):
        match = re.match(pattern, text, re.IGNORECASE)
        if match:
            return f"{match[1].upper()} {match[2]}"
    return text[:40]


_TRANSACTION_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)\b", re.IGNORECASE)


def _on_query(record: Any) -> None:
    """asyncpg's query logger: one LoggedQuery per statement a connection sent."""
    control = _TRANSACTION_CONTROL.match(record.query)
    if control:
        STATS.transactions[control[1].upper()] += 1
    else:
        STATS.sql[_statement_kind(record.query)] += 1


class _CountedAcquire:
    """`pool.acquire()` as the app uses it (`async with`): counts the checkout and makes sure
    the connection handed out logs its queries (a set: adding the logger again is a no-op;
    it stays on the connection across checkouts)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __aenter__(self) -> Any:
        conn = await self.inner.__aenter__()
        STATS.checkouts += 1
        conn.add_query_logger(_on_query)
        return conn

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)

    def __await__(self) -> Any:  # `conn = await pool.acquire()`
        async def acquired() -> Any:
            conn = await self.inner
            STATS.checkouts += 1
            conn.add_query_logger(_on_query)
            return conn

        return acquired().__await__()


class _CountedPool:
    """Stands in for `Database.pool` (an asyncpg pool, whose __slots__ allow no patching):
    the same pool, with `acquire` counted."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    def acquire(self, *, timeout: float | None = None) -> _CountedAcquire:
        return _CountedAcquire(self._pool.acquire(timeout=timeout))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


def _watch_database(db: Any) -> Any:
    """Route the app's checkouts through `_CountedPool`; returns the real pool."""
    pool = db.pool
    db.pool = _CountedPool(pool)
    return pool


def _watch_notifier(state: Any) -> None:
    """Count the live events (deltas, tool calls...) a turn publishes; each is also sent to the
    other instances as a NOTIFY on the notifier's connection."""
    notifier = getattr(state, "notifier", None)
    if notifier is None:
        return
    publish = notifier.publish_live

    def counted(conversation_id: int, event: str, data: Any) -> None:
        STATS.live[event] += 1
        publish(conversation_id, event, data)

    notifier.publish_live = counted


class Profiler:
    """cProfile of the event-loop thread, summed by package: where a turn's CPU goes."""

    def __init__(self) -> None:
        self.profile: cProfile.Profile | None = None

    def start(self) -> None:
        self.profile = cProfile.Profile()
        self.profile.enable()

    def stop(self) -> dict[str, float]:
        """Self time by package. A C function's time goes to the package that called it;
        the loop's wait for I/O (epoll/select) is idle time and left out."""
        assert self.profile is not None
        self.profile.disable()
        stats = pstats.Stats(self.profile)
        if dump := os.environ.get("PARLEY_BENCH_PROFILE_DUMP"):  # the raw profile, to read
            stats.dump_stats(dump)
        by: collections.Counter[str] = collections.Counter()
        for (filename, _line, name), (_cc, _nc, tottime, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
            if filename != "~":
                by[_package(filename)] += tottime
            elif any(
                idle in name
                for idle in (
                    "'poll' of 'select.epoll'",
                    "'select' of 'select",
                    "built-in method select.select",
                )
            ):
                continue
            elif callers:
                for (caller_file, _l, _n), caller_stats in callers.items():
                    by[_package(caller_file)] += caller_stats[2]
            else:
                by["builtins (C functions)"] += tottime
        self.profile = None
        return {k: v for k, v in by.most_common() if v > 0}


def _package(filename: str) -> str:
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if "/parley/" in filename:
        return "parley." + filename.split("/parley/", 1)[1].removesuffix(".py").replace("/", ".")
    if filename.startswith("<") or filename == "~":
        return "builtins (C functions)"
    return "python stdlib: " + filename.rsplit("/", 1)[-1].removesuffix(".py")


PROFILER = Profiler()


async def _probe(pool: Any) -> None:
    while True:
        t0 = time.perf_counter()
        await asyncio.sleep(0.002)
        STATS.lateness.append(time.perf_counter() - t0 - 0.002)
        STATS.pool_max = max(STATS.pool_max, pool.get_size() - pool.get_idle_size())


def main() -> None:
    args = server_args()
    settings = get_settings()
    app = create_app(settings, database_url=settings.database_url)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with inner(app_) as state:
            pool = _watch_database(app_.state.db)
            _watch_notifier(app_.state)
            probe = asyncio.create_task(_probe(pool))
            yield state
            probe.cancel()

    app.router.lifespan_context = lifespan

    async def stats(reset: bool = False) -> dict[str, Any]:
        report = STATS.report()
        if reset:
            STATS.reset()
        return report

    async def profile(action: str) -> dict[str, Any]:
        if action == "start":
            PROFILER.start()
            return {}
        return PROFILER.stop()

    async def memory(action: str, top: int = 12) -> dict[str, Any]:
        """Python allocations made between start and stop and still alive, by package and by line."""
        if action == "start":
            tracemalloc.start(10)
            return {}
        snapshot = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        tracemalloc.stop()
        by_package: collections.Counter[str] = collections.Counter()
        by_line: collections.Counter[str] = collections.Counter()
        for stat in snapshot.statistics("traceback"):
            frames = list(stat.traceback)  # oldest call first
            own = next(
                (
                    f
                    for f in reversed(frames)
                    if "site-packages/" in f.filename or "/parley/" in f.filename
                ),
                frames[-1],
            )
            by_package[_package(own.filename)] += stat.size
            short = own.filename.split("site-packages/", 1)[-1].split("/backend/", 1)[-1]
            by_line[f"{short}:{own.lineno}"] += stat.size
        return {
            "total": sum(by_package.values()),
            "by_package": dict(by_package.most_common(top)),
            "by_line": dict(by_line.most_common(top)),
        }

    app.add_api_route("/__bench/stats", stats, methods=["GET"])
    app.add_api_route("/__bench/memory", memory, methods=["GET"])
    app.add_api_route("/__bench/profile", profile, methods=["GET"])
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, loop="asyncio")


if __name__ == "__main__":
    main()
