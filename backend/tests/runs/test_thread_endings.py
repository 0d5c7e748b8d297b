"""A thread's state is its child run's: finishing or cancelling that run closes the thread in
the same transaction, wakes the waiting parent, and a cancelled delegation is never claimed."""

from __future__ import annotations

import asyncio

from parley.db import Database
from tests.conftest import Server, spawn_server, token_for
from tests.runs.helpers import Actor, claimed, delegate, error_code
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client


async def test_finishing_the_child_run_closes_its_thread(server: Server) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    run = await architect.start_run()
    async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
        for ending in ("completed", "failed", "cancelled"):
            thread = await delegate(architect, run, f"ends {ending}")
            child = (await claimed(coder, thread))["child_run_id"]
            waiting = asyncio.create_task(
                client.call_tool("wait_for_child", {"thread_id": thread, "timeout_s": 20})
            )
            finished = await coder.ok(
                "POST", f"/runs/{child}/finish", json={"status": ending, "summary": f"{ending}!"}
            )
            assert finished["status"] == ending
            seen = data(await asyncio.wait_for(waiting, 10))
            assert (seen["status"], seen["result"]) == (ending, f"{ending}!")
            assert seen["closed_at"] is not None
            for outcome in ("complete", "fail", "cancel"):
                late = await coder.call(
                    "POST", f"/delegations/{thread}/{outcome}", json={"text": "x"}
                )
                assert late.status_code in (403, 409), late.text
                if late.status_code == 409:
                    assert error_code(late) == "run_finished"


async def test_a_person_cancelling_a_pending_child_run_cancels_the_delegation(
    server: Server,
) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    person = Actor(server, "alice")
    run = await architect.start_run()
    thread = await delegate(architect, run, "Never mind")
    child = (await architect.ok("GET", f"/delegations/{thread}"))["child_run_id"]
    await person.ok("POST", f"/runs/{child}/finish", json={"status": "cancelled"})
    assert (await person.ok("GET", f"/delegations/{thread}"))["status"] == "cancelled"
    assert (await coder.ok("GET", "/delegations/next"))["delegation"] is None
    refused = await coder.call("POST", f"/conversations/{thread}/messages", json={"text": "mine?"})
    assert refused.status_code == 409 and error_code(refused) == "run_finished"


async def test_cancel_and_claim_race_on_two_instances(
    server: Server, migrated: str, db: Database
) -> None:
    """The person cancels pending child runs through one instance while the coder claims
    through another: each delegation ends up claimed-then-cancelled or cancelled unclaimed,
    never a live claim on a cancelled run."""
    _process, other = await spawn_server(migrated)
    architect, person = Actor(server, "alice", "architect"), Actor(server, "alice")
    run = await architect.start_run()
    threads = [await delegate(architect, run, f"job {i}") for i in range(8)]
    children = [(await person.ok("GET", f"/delegations/{t}"))["child_run_id"] for t in threads]

    async def cancel(child: int) -> int:
        response = await person.call("POST", f"/runs/{child}/finish", json={"status": "cancelled"})
        return response.status_code

    async def claim_all() -> list[int]:
        got: list[int] = []
        async with mcp_client(other, token_for("alice", agent="coder")) as coder:
            while True:
                found = data(await coder.call_tool("next_delegation", {"wait_s": 0}))
                if found["delegation"] is None:
                    return got
                got.append(found["delegation"]["thread_id"])

    *statuses, got = await asyncio.gather(*(cancel(c) for c in children), claim_all())
    assert statuses == [200] * len(children)
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT d.status, r.status::text AS run FROM delegations d"
            " JOIN agent_runs r ON r.id = d.child_run_id WHERE d.parent_run_id = $1",
            run["id"],
        )
    assert {(r["status"], r["run"]) for r in rows} == {("cancelled", "cancelled")}
    assert set(got) <= set(threads)
