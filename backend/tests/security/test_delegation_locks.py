"""A claim and a write into the same thread lock in one order: the conversation, then the
delegation. A claim that took a lapsed delegation's row first and then needed the
conversation (the second update of that row re-checks its foreign keys) deadlocked with a
message posted there, which holds the conversation and waits for the delegation: the
poller got a 500 and the claim was lost."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.auth import Caller
from parley.db import Database
from parley.runs import delegations
from tests.conftest import eventually
from tests.runs.helpers import Actor, delegate

# A lease that lapses at once, and a sweep that never comes: every claim re-claims a lapsed
# delegation (released, then claimed: two updates of its row in one transaction).
LAPSING = {"PARLEY_CLAIM_LEASE_SECONDS": 0.01, "PARLEY_SWEEP_SECONDS": 3600}


async def _lapsed(db: Database, thread: int) -> bool:
    async with db.connection() as conn:
        return bool(
            await conn.fetchval(
                "SELECT status = 'claimed' AND acked_at IS NULL AND lease_until <= now()"
                " FROM delegations WHERE thread_id = $1",
                thread,
            )
        )


async def test_a_reclaim_never_waits_on_a_conversation_a_writer_holds(
    make_server: Any, db: Database
) -> None:
    """A writer holds the thread's conversation and is about to lock its delegation (as
    every post does) while a poller re-claims the lapsed delegation: the poller passes it by
    (it is the writer's for now) instead of taking the delegation and waiting, and gets it
    on its next poll."""
    async with make_server(**LAPSING) as server:
        architect = Actor(server, "alice", "architect")
        coder = Actor(server, "alice", "coder")
        run = await architect.start_run()
        thread = await delegate(architect, run, "Port the parser")
        first = await coder.ok("GET", "/delegations/next", params={"claimer": "w-1"})
        assert first["delegation"]["thread_id"] == thread
        await eventually(lambda: _lapsed(db, thread))

        async with db.transaction() as writer:
            await writer.execute("SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", thread)
            poll = asyncio.create_task(
                coder.call("GET", "/delegations/next", params={"claimer": "w-2"})
            )

            async def settled() -> bool:
                if poll.done():
                    return True
                async with db.connection() as conn:  # or stuck behind the writer
                    return bool(
                        await conn.fetchval(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            " AND query LIKE '%delegations%' AND pid <> pg_backend_pid()"
                        )
                    )

            await eventually(settled)
            # The writer goes on to the delegation row, as `lock_target` does.
            await writer.fetchrow(
                "SELECT status FROM delegations WHERE thread_id = $1 FOR UPDATE", thread
            )
            response = await poll
        assert response.status_code == 200, response.text
        assert response.json()["delegation"] is None  # passed by while the writer held it
        again = await coder.ok("GET", "/delegations/next", params={"claimer": "w-2"})
        assert again["delegation"]["thread_id"] == thread
        assert again["delegation"]["status"] == "claimed"


async def test_pollers_reclaiming_while_people_post_never_deadlock(
    make_server: Any, db: Database
) -> None:
    """Eight pollers keep re-claiming lapsed delegations while the person posts into the
    same threads: every request answers (no 500), and every thread ends claimed once."""
    async with make_server(**LAPSING) as server:
        architect = Actor(server, "alice", "architect")
        person = Actor(server, "alice")
        coder = Actor(server, "alice", "coder")
        run = await architect.start_run()
        threads = [await delegate(architect, run, f"job {i}") for i in range(4)]
        failures: list[str] = []
        claims = 0

        async def poller(name: str) -> None:
            nonlocal claims
            for _ in range(30):
                response = await coder.call("GET", "/delegations/next", params={"claimer": name})
                if response.status_code != 200:
                    failures.append(f"poll {response.status_code}: {response.text[:200]}")
                elif response.json()["delegation"] is not None:
                    claims += 1

        async def poster(thread: int) -> None:
            for i in range(20):
                response = await person.call(
                    "POST", f"/conversations/{thread}/messages", json={"text": f"note {i}"}
                )
                if response.status_code != 201:
                    failures.append(f"post {response.status_code}: {response.text[:200]}")

        await asyncio.gather(*(poller(f"w-{i}") for i in range(8)), *map(poster, threads))
        assert failures == []
        assert claims > len(threads)  # lapsed claims were taken again, many times
        async with db.connection() as conn:
            rows = await conn.fetch("SELECT status, claimer FROM delegations")
            notes = await conn.fetchval("SELECT count(*) FROM messages WHERE content LIKE 'note %'")
        assert {r["status"] for r in rows} == {"claimed"} and all(r["claimer"] for r in rows)
        assert notes == 4 * 20


async def test_a_read_under_a_lapsed_claim_leaves_the_next_claim_unacknowledged(
    make_server: Any, db: Database
) -> None:
    """A process of the child reads the thread under its claim; the claim lapses and another
    process claims it before that read's acknowledgement is written. The late acknowledgement
    is for the old claim only: the new one has reached no one yet, so it still lapses and is
    re-delivered, instead of sitting acknowledged with no one working on it."""
    async with make_server(**LAPSING) as server:
        architect = Actor(server, "alice", "architect")
        coder = Actor(server, "alice", "coder")
        run = await architect.start_run()
        thread = await delegate(architect, run, "Port the parser")
        first = await coder.ok("GET", "/delegations/next", params={"claimer": "w-1"})
        assert first["delegation"]["thread_id"] == thread
        caller = Caller("alice", "coder")
        seen = (await delegations.get_thread(db, caller=caller, thread_id=thread)).delegation
        await eventually(lambda: _lapsed(db, thread))
        again = await coder.ok("GET", "/delegations/next", params={"claimer": "w-2"})
        assert again["delegation"]["thread_id"] == thread

        await delegations.heard_from(db, caller=caller, thread=seen)  # w-1's late read

        async with db.connection() as conn:
            acked = await conn.fetchval(
                "SELECT acked_at FROM delegations WHERE thread_id = $1", thread
            )
        assert acked is None
        # The claim w-1 read, had it still been current, would have been acknowledged.
        now = (await delegations.get_thread(db, caller=caller, thread_id=thread)).delegation
        await delegations.heard_from(db, caller=caller, thread=now)
        async with db.connection() as conn:
            acked = await conn.fetchval(
                "SELECT acked_at FROM delegations WHERE thread_id = $1", thread
            )
        assert acked is not None
