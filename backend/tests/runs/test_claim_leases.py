"""A claim is a lease until the child acts on it: a claim whose answer never reached the
client comes back to the same claimer, or, unacknowledged past its lease, goes back to the
queue. Driven by the official MCP client, under the `/mcp` rate cap, on two instances."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from parley.db import Database
from tests.conftest import Server, eventually, spawn_server, token_for
from tests.runs.helpers import Actor, delegate
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client


class LostAnswer(Exception):
    """The client never saw the answer the server sent."""


@asynccontextmanager
async def losing_client(base_url: str, token: str) -> AsyncIterator[Client]:
    """The official client, whose connection drops as the answer to its next `tools/call`
    arrives: the server did the work, the caller never learns of it."""

    async def drop(response: httpx2.Response) -> None:
        body = json.loads(response.request.content or b"{}")
        if isinstance(body, dict) and body.get("method") == "tools/call":
            raise LostAnswer()

    headers = {"Authorization": f"Bearer {token}"}
    hooks = {"response": [drop]}
    transport = f"{base_url}/mcp"
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30, event_hooks=hooks) as http,
        Client(streamable_http_client(transport, http_client=http)) as client,
    ):
        yield client


async def lose_a_claim(base_url: str, **arguments: Any) -> None:
    try:
        async with losing_client(base_url, token_for("alice", agent="coder")) as client:
            await client.call_tool("next_delegation", {"wait_s": 0, **arguments})
    except Exception as exc:  # the SDK wraps it in its task groups
        assert "LostAnswer" in repr(exc) or isinstance(exc, LostAnswer), repr(exc)
    else:
        raise AssertionError("the answer was not lost")


async def statuses(db: Database) -> dict[int, str]:
    async with db.connection() as conn:
        rows = await conn.fetch("SELECT thread_id, status FROM delegations")
    return {r["thread_id"]: r["status"] for r in rows}


async def test_a_claim_whose_answer_was_lost_comes_back_to_its_claimer(
    server: Server, db: Database
) -> None:
    architect = Actor(server, "alice", "architect")
    run = await architect.start_run()
    thread = await delegate(architect, run, "Lost in transit")
    await lose_a_claim(server.base_url, claimer="worker-1")
    assert await statuses(db) == {thread: "claimed"}  # the server claimed it
    async with mcp_client(server.base_url, token_for("alice", agent="coder")) as coder:
        other = data(await coder.call_tool("next_delegation", {"wait_s": 0, "claimer": "w-2"}))
        assert other["delegation"] is None  # not anyone's: its claimer's
        again = data(await coder.call_tool("next_delegation", {"wait_s": 0, "claimer": "worker-1"}))
        assert again["delegation"]["thread_id"] == thread
        assert again["delegation"]["acked_at"] is None
        # Acting in the thread acknowledges it: never delivered again, never lapsing.
        data(await coder.call_tool("read_thread", {"thread_id": thread}))
        done = data(await coder.call_tool("next_delegation", {"wait_s": 0, "claimer": "worker-1"}))
        assert done["delegation"] is None
    seen = await architect.ok("GET", f"/delegations/{thread}")
    assert seen["status"] == "claimed" and seen["acked_at"] is not None


async def test_an_unacknowledged_claim_lapses_back_to_the_queue(make_server: Any) -> None:  # type: ignore[no-untyped-def]
    async with make_server(PARLEY_CLAIM_LEASE_SECONDS=1, PARLEY_SWEEP_SECONDS=0.2) as server:
        architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
        run = await architect.start_run()
        lost = await delegate(architect, run, "Claimed by a process that died")
        kept = await delegate(architect, run, "Claimed and acted on")
        await lose_a_claim(server.base_url)  # no claimer: only the lease brings it back
        got = (await coder.ok("GET", "/delegations/next"))["delegation"]
        assert got["thread_id"] == kept
        await coder.ok("POST", f"/delegations/{kept}/ack")
        # Another process polls; the lapsed claim reaches it (the sweeper's message wakes it).
        again = await coder.ok("GET", "/delegations/next", params={"wait": 20})
        assert again["delegation"]["thread_id"] == lost
        messages = await coder.ok("GET", f"/delegations/{lost}/messages")  # acknowledges
        assert "open to claim again" in messages[-1]["content"]
        # Acknowledged claims never lapse: a wait past several leases brings nothing.
        assert (await coder.ok("GET", "/delegations/next", params={"wait": 2.5}))[
            "delegation"
        ] is None
        for thread in (lost, kept):
            assert (await architect.ok("GET", f"/delegations/{thread}"))["status"] == "claimed"


async def call_once(base_url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One MCP session per call, as the examples do (three requests against the cap)."""
    async with mcp_client(base_url, token_for("alice", agent="coder")) as client:
        return data(await client.call_tool(tool, arguments))


async def test_near_the_rate_cap_every_claim_is_delivered_once(
    migrated: str, db: Database, server: Server
) -> None:
    """Workers long-poll one capped instance while delegations keep arriving, until it
    refuses them (calls then fail on the client, some after the server claimed), then carry
    on through a second instance with the same claimer keys: every delegation reaches
    exactly one worker, and every claim is acted on."""
    _capped, capped = await spawn_server(migrated, PARLEY_RATE_LIMIT_PER_MINUTE="75")
    _free, free = await spawn_server(migrated)
    architect = Actor(server, "alice", "architect")
    run = await architect.start_run()
    threads: set[int] = set()
    delivered: dict[str, set[int]] = {}
    failures = 0
    all_made = asyncio.Event()

    async def worker(name: str) -> None:
        nonlocal failures
        mine = delivered.setdefault(name, set())
        while True:  # against the capped instance, until it refuses
            try:
                got = await call_once(capped, "next_delegation", {"wait_s": 2, "claimer": name})
            except Exception:
                failures += 1
                break
            if got["delegation"] is not None:
                mine.add(got["delegation"]["thread_id"])
            elif all_made.is_set():
                break
        await all_made.wait()
        while True:  # then the free one: lost claims come back first, then the queue
            got = await call_once(free, "next_delegation", {"wait_s": 0, "claimer": name})
            if got["delegation"] is None:
                return
            thread = got["delegation"]["thread_id"]
            mine.add(thread)
            await call_once(free, "read_thread", {"thread_id": thread})  # acknowledged

    async def delegate_over_time() -> None:
        for i in range(30):
            threads.add(await delegate(architect, run, f"job {i}"))
        all_made.set()

    await asyncio.gather(delegate_over_time(), *(worker(f"worker-{i}") for i in range(8)))
    assert failures > 0  # the cap was reached
    everyone = sorted(t for got in delivered.values() for t in got)
    assert everyone == sorted(threads)  # each delivered, to exactly one worker
    assert set((await statuses(db)).values()) == {"claimed"}
    async with db.connection() as conn:
        unacked = await conn.fetchval("SELECT count(*) FROM delegations WHERE acked_at IS NULL")
    assert unacked == 0  # every claim reached its worker, which acted on it


async def test_waiting_pollers_wake_for_a_lapsed_claim(make_server: Any) -> None:  # type: ignore[no-untyped-def]
    """Nothing is stored when a lease lapses but the sweeper's message, which wakes a
    poller already waiting on another instance's claim."""
    async with make_server(PARLEY_CLAIM_LEASE_SECONDS=0.5, PARLEY_SWEEP_SECONDS=0.2) as server:
        architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
        run = await architect.start_run()
        thread = await delegate(architect, run, "Second chance")
        await lose_a_claim(server.base_url)
        waiting = asyncio.create_task(coder.ok("GET", "/delegations/next", params={"wait": 20}))

        async def claimed_again() -> bool:
            return waiting.done()

        await eventually(claimed_again, within=15)
        assert waiting.result()["delegation"]["thread_id"] == thread
