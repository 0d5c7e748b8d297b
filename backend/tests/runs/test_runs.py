"""A run's life over REST: start, status, the person writes, the agent reads (long-poll),
finish, and every write refused afterwards; silence timeout; who may do what."""

from __future__ import annotations

import asyncio

from parley.db import Database
from tests.conftest import Server, eventually, snapshot
from tests.runs.helpers import Actor, error_code


async def test_a_runs_life_from_start_to_read_only(server: Server, db: Database) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    run = await agent.start_run("Refactor auth")
    assert run["agent"] == "planner" and run["status"] == "running"
    assert run["title"] == "Refactor auth" and run["conversation_id"]
    path = f"/runs/{run['id']}"

    updated = await agent.ok("POST", f"{path}/status", json={"text": "Half way", "progress": 50})
    assert updated["progress"] == 50 and updated["latest_status"] == "Half way"

    # The agent long-polls; the person writes meanwhile; the agent gets it at once.
    seen = await agent.ok("GET", f"{path}/messages")
    last = seen[-1]["id"]
    assert seen[-1]["kind"] == "status" and seen[-1]["meta"] == {"progress": 50}
    poll = asyncio.create_task(
        agent.ok("GET", f"{path}/messages", params={"after": last, "wait": 20})
    )
    await server.following(run["conversation_id"])  # the poll waits: nothing new yet
    assert not poll.done()
    said = await person.post(f"{path}/messages", "Use authlib please")
    got = await asyncio.wait_for(poll, 5)
    assert [m["id"] for m in got] == [said["id"]]
    assert got[0]["role"] == "user" and got[0]["author"] == "alice"

    reply = await agent.post(f"{path}/messages", "Will do")
    assert reply["role"] == "agent" and reply["author"] == "planner"
    finished = await agent.ok(
        "POST", f"{path}/finish", json={"status": "completed", "summary": "Auth uses OAuth2"}
    )
    assert finished["status"] == "completed" and finished["ended_at"]
    assert finished["summary"] == "Auth uses OAuth2"

    before = await snapshot(db)
    for who in (agent, person):
        for method, sub, body in (
            ("POST", "/messages", {"text": "more"}),
            ("POST", "/status", {"text": "more", "progress": 60}),
            ("POST", "/finish", {"status": "failed"}),
        ):
            refused = await who.call(method, path + sub, json=body)
            assert refused.status_code == 409, refused.text
            assert error_code(refused) == "run_finished"
    assert await snapshot(db) == before
    listed = await person.ok("GET", "/runs", params={"status": "completed"})
    assert [r["id"] for r in listed] == [run["id"]]


async def test_long_poll_returns_empty_after_wait(server: Server) -> None:
    agent = Actor(server, "alice", "planner")
    run = await agent.start_run()
    started = asyncio.get_running_loop().time()
    got = await agent.ok("GET", f"/runs/{run['id']}/messages", params={"after": 2**40, "wait": 0.5})
    assert got == []
    assert asyncio.get_running_loop().time() - started >= 0.45


async def test_a_silent_run_times_out_and_turns_read_only(make_server) -> None:  # type: ignore[no-untyped-def]
    async with make_server(PARLEY_RUN_SILENCE_TIMEOUT=1, PARLEY_SWEEP_SECONDS=0.2) as server:
        agent = Actor(server, "alice", "planner")
        run = await agent.start_run()

        async def timed_out() -> bool:
            found = await agent.ok("GET", f"/runs/{run['id']}")
            return bool(found["status"] == "timed_out")

        await eventually(timed_out, within=10)
        refused = await agent.call("POST", f"/runs/{run['id']}/messages", json={"text": "hi"})
        assert refused.status_code == 409
        messages = await agent.ok("GET", f"/runs/{run['id']}/messages")
        assert messages[-1]["role"] == "system" and "timed out" in messages[-1]["content"]


async def test_who_may_do_what(server: Server) -> None:
    planner, coder = Actor(server, "alice", "planner"), Actor(server, "alice", "coder")
    person, mallory = Actor(server, "alice"), Actor(server, "mallory", "planner")
    run = await planner.start_run()
    path = f"/runs/{run['id']}"
    # A person's token does not start runs; an agent's token does not chat as the person.
    assert (await person.call("POST", "/runs", json={})).status_code == 403
    chat = await planner.call("POST", "/chat", json={"message": "hello"})
    assert chat.status_code == 403 and error_code(chat) == "agent_not_allowed"
    # Another agent of the same person cannot write into, report on or end this run.
    for sub, body in (
        ("/messages", {"text": "x"}),
        ("/status", {"text": "x"}),
        ("/finish", {"status": "completed"}),
    ):
        refused = await coder.call("POST", path + sub, json=body)
        assert refused.status_code == 403 and error_code(refused) == "not_your_run"
    # Another user sees nothing of it.
    for method, sub, body in (
        ("GET", "", None),
        ("GET", "/messages", None),
        ("POST", "/messages", {"text": "x"}),
        ("POST", "/status", {"text": "x"}),
        ("POST", "/finish", {"status": "completed"}),
    ):
        response = await mallory.call(method, path + sub, json=body)
        assert response.status_code == 404, (sub, response.text)
    assert await mallory.ok("GET", "/runs") == []
    # Nor can a token act under another user's path.
    assert (
        await mallory.server.client.get("/api/alice/runs", headers=mallory.headers)
    ).status_code == 403


async def test_bad_input_is_a_clear_4xx_and_stores_nothing(server: Server, db: Database) -> None:
    agent = Actor(server, "alice", "planner")
    run = await agent.start_run()
    done = await agent.start_run("done")
    await agent.ok("POST", f"/runs/{done['id']}/finish", json={"status": "cancelled"})
    path = f"/runs/{run['id']}"
    before = await snapshot(db)
    cases = [
        ("POST", "/runs/999999/messages", {"text": "x"}, 404),
        ("POST", f"/runs/{done['id']}/messages", {"text": "x"}, 409),
        ("GET", f"{path}/messages?wait=61", None, 422),
        ("POST", f"{path}/status", {"text": "x", "progress": 101}, 422),
        ("POST", f"{path}/status", {"text": "x", "progress": -1}, 422),
        ("POST", f"{path}/messages", {"text": "x" * 16_001}, 413),
        ("POST", f"{path}/messages", {"text": "x", "kind": "completion"}, 422),
        ("POST", f"{path}/messages", {"text": "x", "kind": "shout"}, 422),
        ("POST", f"{path}/messages", {"text": "   "}, 422),
        ("POST", f"{path}/messages", {"text": "x", "reply_to": 123456}, 422),
        ("POST", f"{path}/finish", {"status": "done"}, 422),
        ("POST", "/runs", {"parent_run_id": 999}, 422),
        ("GET", "/runs?status=sleeping", None, 422),
    ]
    for method, url, body, status in cases:
        response = await agent.call(method, url, json=body)
        assert response.status_code == status, (url, body, response.text)
        assert response.json()["error"]["message"]
    assert await snapshot(db) == before
