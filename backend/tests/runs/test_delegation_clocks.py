"""Each clock on its own deadline: an unclaimed delegation lasts its own `timeout_s`, not the
run-silence timeout, and a parent that only waits on its child is not silent."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from tests.conftest import eventually, token_for
from tests.runs.helpers import Actor, claimed, delegate
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client

# Long enough that a heavily loaded machine never leaves a parent quiet that long between
# two of the test's own calls (at 1 s a doubly loaded run saw it happen).
SILENCE = 2.0


def at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


async def test_an_unclaimed_delegation_lasts_its_own_timeout(make_server: Any) -> None:  # type: ignore[no-untyped-def]
    async with make_server(PARLEY_SWEEP_SECONDS=0.2, PARLEY_RUN_SILENCE_TIMEOUT=SILENCE) as server:
        architect = Actor(server, "alice", "architect")
        run = await architect.start_run()
        thread = await delegate(architect, run, "Someone, some day", timeout_s=4 * SILENCE)
        # The parent waits on it (and so stays heard from); it ends at its own deadline.
        waited = await architect.ok("GET", f"/delegations/{thread}", params={"wait": 20})
        assert waited["status"] == "timed_out"
        assert at(waited["closed_at"]) >= at(waited["timeout_at"])
        messages = await architect.ok("GET", f"/delegations/{thread}/messages")
        assert "picked this up in time" in messages[-1]["content"]
        child = await architect.ok("GET", f"/runs/{waited['child_run_id']}")
        assert child["status"] == "timed_out"
        assert (await architect.ok("GET", f"/runs/{run['id']}"))["status"] == "running"


async def _child_reports_until(coder: Actor, child: int, seconds: float) -> None:
    """The child at work: a progress report every 0.3 s (its own pace) for `seconds`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    progress = 0
    while loop.time() < end:
        progress = min(progress + 5, 95)
        await coder.ok(
            "POST", f"/runs/{child}/status", json={"text": "on it", "progress": progress}
        )
        await asyncio.sleep(0.3)


async def test_a_parent_waiting_on_its_child_is_not_silent(make_server: Any) -> None:  # type: ignore[no-untyped-def]
    async with make_server(PARLEY_SWEEP_SECONDS=0.2, PARLEY_RUN_SILENCE_TIMEOUT=SILENCE) as server:
        architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
        run = await architect.start_run()
        rest_thread = await delegate(architect, run, "Over REST")
        # From here the parent's only calls are its waits, each longer than the silence
        # timeout, begun before the child claims anything (so no quiet gap of the test's own
        # making precedes them, however slow the machine).
        rest_wait = asyncio.create_task(
            architect.ok("GET", f"/delegations/{rest_thread}", params={"wait": 30})
        )
        mcp_thread = await delegate(architect, run, "Over MCP")
        async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
            mcp_wait = asyncio.create_task(
                client.call_tool("wait_for_child", {"thread_id": mcp_thread, "timeout_s": 30})
            )
            rest_child = (await claimed(coder, rest_thread))["child_run_id"]
            mcp_child = (await claimed(coder, mcp_thread))["child_run_id"]
            await asyncio.gather(
                _child_reports_until(coder, rest_child, 4 * SILENCE),
                _child_reports_until(coder, mcp_child, 4 * SILENCE),
            )
            for thread in (rest_thread, mcp_thread):
                await coder.ok("POST", f"/delegations/{thread}/complete", json={"text": "done"})
            assert (await asyncio.wait_for(rest_wait, 10))["status"] == "completed"
            assert data(await asyncio.wait_for(mcp_wait, 10))["status"] == "completed"
        parent = await architect.ok("GET", f"/runs/{run['id']}")
        assert parent["status"] == "running", parent
        finished = await architect.ok(
            "POST", f"/runs/{run['id']}/finish", json={"status": "completed"}
        )
        assert finished["status"] == "completed"


async def test_a_wait_keeps_the_run_alive_only_until_its_own_deadline(make_server: Any) -> None:  # type: ignore[no-untyped-def]
    """A parent whose wait ran out and who then falls silent times out: a wait is activity
    up to its own deadline, not a pass for good."""
    async with make_server(PARLEY_SWEEP_SECONDS=0.2, PARLEY_RUN_SILENCE_TIMEOUT=SILENCE) as server:
        architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
        run = await architect.start_run()
        thread = await delegate(architect, run, "Slow")
        # The parent waits at once (no quiet gap before it, however slow the machine).
        waiting = asyncio.create_task(
            architect.ok("GET", f"/delegations/{thread}", params={"wait": 3 * SILENCE})
        )
        child = (await claimed(coder, thread))["child_run_id"]
        working = asyncio.create_task(_child_reports_until(coder, child, 14 * SILENCE))
        waited = await waiting
        assert waited["status"] == "claimed"  # the wait ran its course
        assert (await architect.ok("GET", f"/runs/{run['id']}"))["status"] == "running"

        async def parent_timed_out() -> bool:
            found = await Actor(server, "alice").ok("GET", f"/runs/{run['id']}")
            return bool(found["status"] == "timed_out")

        await eventually(parent_timed_out, within=8 * SILENCE)
        assert not working.done()  # the child was busy all along
        working.cancel()
