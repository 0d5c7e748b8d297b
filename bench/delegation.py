"""Agents delegating to agents: the round trip of one delegation, and many threads at once
across two instances with every message accounted for.

**Round trip.** A parent agent (`architect`) delegates from its run (`POST .../delegations`)
and waits for the thread to close (`GET /delegations/{thread}?wait=30`); a child process
(`coder`) is long-polling `GET /delegations/next?wait=30`, claims it and completes it at once.
Timed from the parent's POST to the parent's wait returning `completed`, one delegation at a
time, with the two agents on one instance and on two (`parley serve` A and B, one database).
The pieces: delegate → claimed (the POST, the NOTIFY, the poller's wake and claim), and
completed → parent woken (from the child's `complete` being sent to the parent's wait returning).

**Many threads.** N parents (their own runs; half on A, half on B) each delegate one task to
`coder`; N coder pollers (half on each instance) each claim whatever they get and play the full
exchange: ask a question and wait for its answer, report 50%, complete. Each parent waits for
its child, answers the question (`reply_to`) and waits for the close. The person follows every
thread live (`GET /delegations/{thread}/messages?after=&wait=`, on the other instance from the
parent). Counted afterwards: each delegation claimed exactly once, each thread stores exactly
its five messages in order, and the person's live reading saw each stored message exactly once.
All agents and the person belong to one user, so every poller competes for the same claims.

Run alone: `.venv/bin/python bench/delegation.py [--quick]`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lib import (
    BenchDatabase,
    LeanClient,
    Pair,
    ServerProcess,
    auth,
    ms,
    pct,
    run_alone,
    server_pair,
)

USER_PREFIX = "bench-deleg"
WAIT = 30
# The messages a thread holds after the full exchange, in order: (kind, writer).
EXCHANGE = [
    ("delegation", "architect"),
    ("question", "coder"),
    ("answer", "architect"),
    ("status", "coder"),
    ("completion", "coder"),
]


class Agent:
    """One agent (or the person) talking to one instance over one keep-alive connection."""

    def __init__(self, server: ServerProcess, user: str, agent: str | None) -> None:
        self.client = LeanClient(server.base_url)
        self.user = user
        self.headers = auth(user, agent)

    async def __aenter__(self) -> Agent:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__()

    async def post(self, path: str, body: dict[str, Any], expect: int = 200) -> Any:
        status, raw = await self.client.post_json(
            f"/api/{self.user}{path}", json.dumps(body).encode(), self.headers
        )
        assert status == expect, (path, status, raw[:300])
        return json.loads(raw)

    async def get(self, path: str) -> Any:
        status, raw = await self.client.get(f"/api/{self.user}{path}", self.headers)
        assert status == 200, (path, status, raw[:300])
        return json.loads(raw)

    async def claim(self) -> dict[str, Any]:
        """The next delegation for this agent, however long it takes."""
        while True:
            found = (await self.get(f"/delegations/next?wait={WAIT}"))["delegation"]
            if found is not None:
                return dict(found)


# -- the round trip --------------------------------------------------------------------------


async def round_trip(
    parent_on: ServerProcess, child_on: ServerProcess, *, count: int, tag: str
) -> dict[str, list[float]]:
    user = f"{USER_PREFIX}-rt-{tag}"
    claimed_at: dict[int, float] = {}
    completing_at: dict[int, float] = {}
    times: dict[str, list[float]] = {"total": [], "claimed": [], "woken": []}
    async with (
        Agent(parent_on, user, "architect") as parent,
        Agent(child_on, user, "coder") as child,
    ):

        async def coder() -> None:
            for _ in range(count):
                thread = await child.claim()
                claimed_at[thread["thread_id"]] = time.perf_counter()
                completing_at[thread["thread_id"]] = time.perf_counter()
                await child.post(f"/delegations/{thread['thread_id']}/complete", {"text": "done"})

        polling = asyncio.create_task(coder())
        run = await parent.post("/runs", {"title": "round trip"}, expect=201)
        await asyncio.sleep(0.2)  # the coder's first poll is parked
        for i in range(count):
            sent = time.perf_counter()
            made = await parent.post(
                f"/runs/{run['id']}/delegations", {"agent": "coder", "task": f"job {i}"}, 201
            )
            thread = made["thread_id"]
            state = await parent.get(f"/delegations/{thread}?wait={WAIT}")
            woken = time.perf_counter()
            assert state["status"] == "completed", state
            times["total"].append(woken - sent)
            times["claimed"].append(claimed_at[thread] - sent)
            times["woken"].append(woken - completing_at[thread])
        await asyncio.wait_for(polling, 10)
    return times


# -- many threads at once --------------------------------------------------------------------


@dataclass
class Threads:
    started: dict[int, float] = field(default_factory=dict)  # thread → delegated at
    closed: dict[int, float] = field(default_factory=dict)  # thread → parent saw it close
    claims: Counter[int] = field(default_factory=Counter)  # thread → times handed to a poller
    seen: dict[int, list[int]] = field(default_factory=dict)  # thread → ids the person read live


async def _parent(
    server: ServerProcess, user: str, i: int, found: Threads, follow: Callable[[int], None]
) -> int:
    """Delegate, have the person follow the thread, answer the child's question, see it close."""
    async with Agent(server, user, "architect") as parent:
        run = await parent.post("/runs", {"title": f"parent {i}"}, expect=201)
        sent = time.perf_counter()
        made = await parent.post(
            f"/runs/{run['id']}/delegations", {"agent": "coder", "task": f"job {i}"}, 201
        )
        thread = int(made["thread_id"])
        found.started[thread] = sent
        follow(thread)
        while True:
            state = await parent.get(f"/delegations/{thread}?wait={WAIT}")
            if state["status"] not in ("pending", "claimed"):
                found.closed[thread] = time.perf_counter()
                assert state["status"] == "completed", state
                return thread
            question = state["open_question"]
            if question is not None:
                await parent.post(
                    f"/conversations/{thread}/messages",
                    {"text": f"answer {i}", "reply_to": question["id"]},
                    201,
                )


async def _coder(server: ServerProcess, user: str, found: Threads) -> None:
    async with Agent(server, user, "coder") as child:
        thread = await child.claim()
        thread_id = int(thread["thread_id"])
        found.claims[thread_id] += 1
        asked = await child.post(
            f"/conversations/{thread_id}/messages", {"text": "which?", "kind": "question"}, 201
        )
        while (await child.get(f"/questions/{asked['id']}?wait={WAIT}"))["status"] != "answered":
            pass
        await child.post(
            f"/runs/{thread['child_run_id']}/status", {"text": "half way", "progress": 50}
        )
        await child.post(f"/delegations/{thread_id}/complete", {"text": "done"})


async def _follow(server: ServerProcess, user: str, thread: int, found: Threads) -> None:
    """The person reads the thread live from its first message until its completion."""
    seen = found.seen.setdefault(thread, [])
    after = 0
    async with Agent(server, user, None) as person:
        while True:
            batch = await person.get(f"/delegations/{thread}/messages?after={after}&wait={WAIT}")
            for message in batch:
                seen.append(message["id"])
                after = max(after, message["id"])
                if message["kind"] == "completion":
                    return


async def many_threads(a: ServerProcess, b: ServerProcess, *, count: int) -> dict[str, Any]:
    user = f"{USER_PREFIX}-many"
    found = Threads()
    began = time.perf_counter()
    coders = [asyncio.create_task(_coder(a if i % 2 else b, user, found)) for i in range(count)]
    await asyncio.sleep(0.5 if count <= 50 else 1.0)  # the pollers are parked first
    following: list[asyncio.Task[None]] = []

    def parent(i: int) -> Any:
        parent_on, person_on = (a, b) if i % 2 else (b, a)

        def follow(thread: int) -> None:
            following.append(asyncio.create_task(_follow(person_on, user, thread, found)))

        return _parent(parent_on, user, i, found, follow)

    await asyncio.wait_for(asyncio.gather(*(parent(i) for i in range(count))), 300)
    await asyncio.wait_for(asyncio.gather(*coders), 60)
    await asyncio.wait_for(asyncio.gather(*following), 60)
    elapsed = time.perf_counter() - began
    return {
        "count": count,
        "elapsed": elapsed,
        "found": found,
        "stored": await _stored(a, user, list(found.started)),
    }


async def _stored(server: ServerProcess, user: str, threads: list[int]) -> dict[int, list[Any]]:
    """Each thread's stored messages as (id, kind, writer), read back at the end."""
    stored: dict[int, list[Any]] = {}
    async with Agent(server, user, None) as person:
        for thread in threads:
            rows = await person.get(f"/delegations/{thread}/messages?after=0")
            stored[thread] = [(m["id"], m["kind"], m["author"] or m["role"]) for m in rows]
    return stored


def account(result: dict[str, Any]) -> dict[str, Any]:
    """What was lost or doubled: claims, stored messages, and the person's live reading."""
    found: Threads = result["found"]
    stored: dict[int, list[Any]] = result["stored"]
    count = result["count"]
    wrong_threads = [t for t, rows in stored.items() if [r[1:] for r in rows] != EXCHANGE]
    lost_live = sum(len({r[0] for r in stored[t]} - set(found.seen.get(t, []))) for t in stored)
    doubled_live = sum(len(ids) - len(set(ids)) for ids in found.seen.values())
    spans = [found.closed[t] - found.started[t] for t in found.closed]
    return {
        "threads": len(stored),
        "claimed_once": sum(1 for t in stored if found.claims[t] == 1),
        "claimed_twice": sum(1 for n in found.claims.values() if n > 1),
        "stored_messages": sum(len(rows) for rows in stored.values()),
        "expected_messages": count * len(EXCHANGE),
        "wrong_threads": len(wrong_threads),
        "lost_live": lost_live,
        "doubled_live": doubled_live,
        "p50": pct(spans, 50),
        "p99": pct(spans, 99),
        "elapsed": result["elapsed"],
        "ok": len(stored) == count
        and not wrong_threads
        and all(found.claims[t] == 1 for t in stored)
        and sum(found.claims.values()) == count
        and lost_live == 0
        and doubled_live == 0,
    }


def measure_delegation(db: BenchDatabase, quick: bool, pair: Pair | None = None) -> dict[str, Any]:
    """The round trip on one and on two instances, then the many threads across both (two
    fresh instances, or `pair` in the smoke run)."""
    trips = 10 if quick else 200
    threads = 20 if quick else 200
    with server_pair(db, "delegation", reuse=pair) as (a, b):
        same = asyncio.run(round_trip(a, a, count=trips, tag="same"))
        cross = asyncio.run(round_trip(a, b, count=trips, tag="cross"))
        many = account(asyncio.run(many_threads(a, b, count=threads)))
    return {"trips": trips, "same": same, "cross": cross, "many": many}


def show(found: dict[str, Any]) -> None:
    for name in ("same", "cross"):
        t = found[name]
        print(
            f"round trip, {name}: p50 {ms(pct(t['total'], 50))}, p99 {ms(pct(t['total'], 99))};"
            f" claimed p50 {ms(pct(t['claimed'], 50))}; woken p50 {ms(pct(t['woken'], 50))},"
            f" p99 {ms(pct(t['woken'], 99))}"
        )
    print(json.dumps(found["many"], indent=1))


if __name__ == "__main__":
    raise SystemExit(run_alone(__doc__, measure_delegation, show))
