"""The write ceiling: concurrent writers through Parley's own append path, with live delivery
on and off, and delivery to a listener on another instance under that load.

Each writer is one asyncpg connection appending messages to its own conversation (its own
person) with `parley_append_message`, the function every turn stores its messages through,
one autocommitted statement per message, as fast as it can, for a fixed time. Measured at 8,
16, 32 and 64 writers in three set-ups of the same database:

- *off*: no Parley instance running, so nothing reads what is written;
- *on*: two `parley serve` instances (A, B), each with its reader, and an SSE client on B
  following the conversation of writer 0 (`GET …/conversations/{id}/events`); delay =
  arrival of the event's last byte minus the writer's statement returning (the commit);
- *NOTIFY per write*: as *off*, plus triggers sending one NOTIFY per stored message and per
  person event, which is what the writers did before migration 0045 (shown for the ceiling
  it had, and dropped again afterwards).

Also runnable alone: `.venv/bin/python bench/writers.py [--quick]`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from lib import (
    BenchDatabase,
    Pair,
    ServerProcess,
    loadavg,
    pct,
    pg_connection,
    run_alone,
    server_pair,
)
from sse import SSEClient, open_sse

APPEND = (
    "SELECT id FROM parley_append_message($1, $2, 'agent', 'bench-writer', 'message', $3,"
    " NULL, false, NULL, NULL)"
)
OLD_TRIGGERS = [
    """CREATE FUNCTION bench_notify_message() RETURNS trigger AS $$
    BEGIN
        PERFORM pg_notify('parley_messages', json_build_object(
            'conversation_id', NEW.conversation_id, 'message_id', NEW.id)::text);
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE FUNCTION bench_notify_event() RETURNS trigger AS $$
    BEGIN
        PERFORM pg_notify('parley_events', json_build_object(
            'u', NEW.user_id, 'k', NEW.kind, 'r', NEW.ref, 'i', NEW.id)::text);
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    "CREATE TRIGGER bench_messages_notify AFTER INSERT ON messages"
    " FOR EACH ROW EXECUTE FUNCTION bench_notify_message()",
    "CREATE TRIGGER bench_user_events_notify AFTER INSERT ON user_events"
    " FOR EACH ROW EXECUTE FUNCTION bench_notify_event()",
]
DROP_OLD = [
    "DROP TRIGGER IF EXISTS bench_messages_notify ON messages",
    "DROP TRIGGER IF EXISTS bench_user_events_notify ON user_events",
    "DROP FUNCTION IF EXISTS bench_notify_message()",
    "DROP FUNCTION IF EXISTS bench_notify_event()",
]


async def _conversations(url: str, count: int) -> list[tuple[int, str]]:
    """One conversation per writer, its own person's (a row at a time: on a Citus cluster
    each goes to that person's node)."""
    made = []
    async with pg_connection(url) as conn:
        for i in range(1, count + 1):
            user = f"bench-writer-{i}"
            conversation = await conn.fetchval(
                "INSERT INTO conversations (user_id, mode, title) VALUES ($1, 'inbox', $2)"
                " RETURNING id",
                user,
                f"writer {i}",
            )
            made.append((int(conversation), user))
    return sorted(made)


async def _ramp(
    url: str,
    targets: list[tuple[int, str]],
    writers: int,
    seconds: float,
    stamps: dict[int, int] | None = None,
) -> dict[str, Any]:
    """`writers` connections append for `seconds`; returns inserts per second. `stamps`
    (message id → commit time) are kept for writer 0's messages."""
    import asyncpg
    from parley.db import asyncpg_dsn

    conns = [await asyncpg.connect(asyncpg_dsn(url)) for _ in range(writers)]
    counts = [0] * writers
    started = asyncio.Event()
    stop_at = 0.0

    async def write(index: int) -> None:
        conn = conns[index]
        conversation_id, user_id = targets[index]
        statement = await conn.prepare(APPEND)
        await started.wait()
        n = 0
        while time.monotonic() < stop_at:
            message_id = await statement.fetchval(conversation_id, user_id, "bench message")
            if stamps is not None and index == 0:
                stamps[int(message_id)] = time.monotonic_ns()
            n += 1
        counts[index] = n

    try:
        tasks = [asyncio.create_task(write(i)) for i in range(writers)]
        await asyncio.sleep(0.2)  # every statement prepared
        began = time.monotonic()
        stop_at = began + seconds
        started.set()
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - began
    finally:
        for conn in conns:
            await conn.close()
    return {
        "writers": writers,
        "inserts": sum(counts),
        "rate": sum(counts) / elapsed,
        "per_writer": [c / elapsed for c in counts],  # each writer's own rate
    }


async def _with_delivery(
    db: BenchDatabase,
    targets: list[tuple[int, str]],
    steps: list[int],
    seconds: float,
    b: ServerProcess,
) -> list[dict[str, Any]]:
    conversation_id, user_id = targets[0]
    listener: SSEClient = await open_sse(
        b.port, "GET", f"/api/{user_id}/conversations/{conversation_id}/events", user_id
    )
    rows = []
    try:
        for writers in steps:
            stamps: dict[int, int] = {}
            first = len(listener.events)
            row = await _ramp(db.url, targets, writers, seconds, stamps)
            await asyncio.sleep(0.5)  # the last events on their way
            arrived = {
                int(eid): t
                for t, event, eid, _ in listener.events[first:]
                if event == "message" and eid is not None
            }
            delays = [(arrived[i] - t) / 1e9 for i, t in stamps.items() if i in arrived]
            row.update(
                {
                    "delays": delays,
                    "written": len(stamps),
                    "delivered": sum(1 for i in stamps if i in arrived),
                    "doubled": sum(
                        1
                        for t, e, eid, _ in listener.events[first:]
                        if e == "message" and eid is not None and int(eid) in stamps
                    )
                    - sum(1 for i in stamps if i in arrived),
                }
            )
            rows.append(row)
    finally:
        listener.close()
    return rows


def measure_writers(
    db: BenchDatabase, quick: bool, pair: Pair | None = None, *, notify: bool = True
) -> dict[str, Any]:
    """The smoke run (`quick`) measures 8 and 64 writers briefly, on `pair` when given,
    without the NOTIFY-per-write comparison (nor with `notify` False: a Citus cluster, whose
    nodes each NOTIFY their own listeners only)."""
    steps = [8, 64] if quick else [8, 16, 32, 64]
    seconds = 0.5 if quick else 4.0

    async def plain(targets: list[tuple[int, str]]) -> list[dict[str, Any]]:
        return [await _ramp(db.url, targets, n, seconds) for n in steps]

    async def old(targets: list[tuple[int, str]]) -> list[dict[str, Any]]:
        async with pg_connection(db.url) as conn:
            for statement in OLD_TRIGGERS:
                await conn.execute(statement)
        try:
            return await plain(targets)
        finally:
            async with pg_connection(db.url) as conn:
                for statement in DROP_OLD:
                    await conn.execute(statement)

    targets = asyncio.run(_conversations(db.url, max(steps)))
    load = loadavg()
    off = asyncio.run(plain(targets))
    with server_pair(db, "writers", reuse=pair) as (_a, b):
        on = asyncio.run(_with_delivery(db, targets, steps, seconds, b))
    old_rows = None if quick or not notify else asyncio.run(old(targets))
    return {
        "steps": steps,
        "seconds": seconds,
        "targets": targets,
        "off": off,
        "on": on,
        "notify": old_rows,
        "load": load,
        "load_after": loadavg(),
    }


def show(found: dict[str, Any]) -> None:
    print(f"load average {found['load']} → {found['load_after']}")
    for i, writers in enumerate(found["steps"]):
        on, off = found["on"][i], found["off"][i]
        old = found["notify"][i] if found["notify"] else {"rate": float("nan")}
        d = on["delays"]
        print(
            f"{writers:>3} writers: off {off['rate']:8.0f}/s  on {on['rate']:8.0f}/s"
            f" ({on['rate'] / off['rate']:.0%})  NOTIFY per write {old['rate']:8.0f}/s"
            f" ({old['rate'] / off['rate']:.0%});  delivery p50"
            f" {pct(d, 50) * 1000 if d else float('nan'):.2f} ms p99"
            f" {pct(d, 99) * 1000 if d else float('nan'):.2f} ms"
            f" ({on['delivered']}/{on['written']})"
        )


if __name__ == "__main__":
    raise SystemExit(run_alone(__doc__, measure_writers, show))
