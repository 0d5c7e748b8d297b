"""The same app `parley serve` runs, with event-loop instrumentation, for diagnosis only.

Differences from `parley serve`: no migrations (the bench has applied them) and the plain
asyncio loop instead of uvloop, because only its callbacks can be timed one by one.
Records, between two calls of GET /__bench/stats:
  - every event-loop callback's CPU and wall time: the longest ones (a blocking call shows
    up here as one long callback) and the total (how busy the loop was);
  - a 2 ms sleeper's lateness (how long a ready task waits for the loop);
  - every hop to the worker-thread pool (anyio.to_thread.run_sync), by function;
  - the database pool's connections in use (sampled every 2 ms), checkouts and SQL statements;
  - garbage-collector pauses by generation;
and, between GET /__bench/profile?action=start and ?action=stop, a cProfile of the loop
thread summed by package; between /__bench/memory?action=start and ?action=stop, the Python
memory allocated and still alive (tracemalloc), by package and line.
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.events
import collections
import cProfile
import gc
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
            "db_checkouts": self.checkouts,
            "db_pre_ping": PRE_PING[0],
            "gc_objects": {"at_reset": self.objects_at_reset, "now": len(gc.get_objects())},
            "live_events_published": dict(self.live),
        }


STATS = Stats()
PRE_PING: list[bool | None] = [None]

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
    STATS.hops[f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"] += 1
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
    call = re.match(r"^SELECT (\w+)\(", text, re.IGNORECASE)
    if call:
        return f"SELECT {call[1]}(…)"
    for pattern in (r"^(INSERT INTO|UPDATE|DELETE FROM) (\w+)", r"^(SELECT)\b.*? FROM (\w+)"):
        match = re.match(pattern, text, re.IGNORECASE)
        if match:
            return f"{match[1].upper()} {match[2]}"
    return text[:40]


def _watch_engine(engine: Any) -> None:
    import sqlalchemy as sa

    def on_execute(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        STATS.sql[_statement_kind(statement)] += 1

    def on_checkout(*args: Any) -> None:
        STATS.checkouts += 1

    PRE_PING[0] = bool(getattr(engine.pool, "_pre_ping", False))
    sa.event.listen(engine, "before_cursor_execute", on_execute)
    sa.event.listen(engine, "checkout", on_checkout)


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
        by: collections.Counter[str] = collections.Counter()
        for (filename, _line, name), (_cc, _nc, tottime, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
            if filename != "~":
                by[_package(filename)] += tottime
            elif any(idle in name for idle in ("'poll' of 'select.epoll'", "'select' of 'select", "built-in method select.select")):
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


async def _probe(app: Any) -> None:
    pool = app.state.db.engine.pool
    while True:
        t0 = time.perf_counter()
        await asyncio.sleep(0.002)
        STATS.lateness.append(time.perf_counter() - t0 - 0.002)
        STATS.pool_max = max(STATS.pool_max, pool.checkedout())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()

    settings = get_settings()
    app = create_app(settings, database_url=settings.database_url)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: Any) -> AsyncIterator[Any]:
        async with inner(app_) as state:
            _watch_engine(app_.state.db.engine.sync_engine)
            _watch_notifier(app_.state)
            probe = asyncio.create_task(_probe(app_))
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
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        tracemalloc.stop()
        by_package: collections.Counter[str] = collections.Counter()
        by_line: collections.Counter[str] = collections.Counter()
        for stat in snapshot.statistics("traceback"):
            frames = list(stat.traceback)  # oldest call first
            own = next((f for f in reversed(frames) if "site-packages/" in f.filename or "/parley/" in f.filename), frames[-1])
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
