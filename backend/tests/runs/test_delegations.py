"""Delegation threads: architect → coder, typed messages, claims, timeouts, the person."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.conftest import Server, eventually, snapshot, spawn_server, token_for
from tests.runs.helpers import Actor, error_code
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client


async def _delegate(architect: Actor, run: dict[str, Any], task: str, **body: Any) -> int:
    made = await architect.ok(
        "POST", f"/runs/{run['id']}/delegations", 201, json={"agent": "coder", "task": task, **body}
    )
    assert made["status"] == "pending" and made["child_agent"] == "coder"
    return int(made["thread_id"])


async def test_the_whole_exchange_over_mcp(server: Server) -> None:
    person = Actor(server, "alice")
    async with (
        mcp_client(server.base_url, token_for("alice", agent="architect")) as architect,
        mcp_client(server.base_url, token_for("alice", agent="coder")) as coder,
    ):
        run = data(await architect.call_tool("start_run", {"title": "Auth"}))
        made = data(
            await architect.call_tool(
                "delegate_task",
                {"run_id": run["id"], "agent": "coder", "task": "Refactor auth to OAuth2"},
            )
        )
        thread = made["thread_id"]
        got = data(await coder.call_tool("next_delegation", {"wait_s": 5}))["delegation"]
        assert got["thread_id"] == thread and got["task"] == "Refactor auth to OAuth2"
        assert got["parent_agent"] == "architect" and got["status"] == "claimed"

        asking = asyncio.create_task(
            coder.call_tool(
                "ask_parent", {"thread_id": thread, "question": "authlib or python-oauth2?"}
            )
        )
        waited = data(await architect.call_tool("wait_for_child", {"thread_id": thread}))
        assert waited["status"] == "claimed"
        question = waited["open_question"]
        assert question["content"] == "authlib or python-oauth2?"
        data(
            await architect.call_tool(
                "answer_child",
                {"thread_id": thread, "question_id": question["id"], "text": "authlib"},
            )
        )
        answer = data(await asyncio.wait_for(asking, 5))
        assert answer["status"] == "answered" and answer["answer"] == "authlib"
        assert answer["answered_by"] == "architect"

        for progress in (20, 50):
            data(
                await coder.call_tool(
                    "report_status",
                    {"thread_id": thread, "text": f"{progress}% done", "progress": progress},
                )
            )
        waiting = asyncio.create_task(architect.call_tool("wait_for_child", {"thread_id": thread}))
        await server.following(thread)  # the wait is in place before the child completes
        data(await coder.call_tool("complete", {"thread_id": thread, "text": "OAuth2 via authlib"}))
        closed = data(await asyncio.wait_for(waiting, 5))
        assert closed["status"] == "completed" and closed["result"] == "OAuth2 via authlib"

    messages = await person.ok("GET", f"/conversations/{thread}/messages")
    assert [(m["kind"], m["author"], (m["meta"] or {}).get("to")) for m in messages] == [
        ("delegation", "architect", "coder"),
        ("question", "coder", "architect"),
        ("answer", "architect", "coder"),
        ("status", "coder", "architect"),
        ("status", "coder", "architect"),
        ("completion", "coder", "architect"),
    ]
    child = await person.ok("GET", f"/runs/{made['child_run_id']}")
    assert child["status"] == "completed" and child["parent_run_id"] == run["id"]
    assert child["progress"] == 100
    for who in (Actor(server, "alice", "coder"), Actor(server, "alice", "architect"), person):
        refused = await who.call("POST", f"/conversations/{thread}/messages", json={"text": "more"})
        assert refused.status_code == 409, refused.text


async def test_fail_and_escalate(server: Server) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    person = Actor(server, "alice")
    run = await architect.start_run()
    first = await _delegate(architect, run, "Port the parser")
    second = await _delegate(architect, run, "Pick a licence")
    for _ in range(2):
        assert (await coder.ok("GET", "/delegations/next"))["delegation"]
    failed = await coder.ok("POST", f"/delegations/{first}/fail", json={"text": "Tests crash"})
    assert failed["status"] == "failed" and failed["result"] == "Tests crash"
    escalated = await coder.ok(
        "POST", f"/delegations/{second}/escalate", json={"text": "Needs a legal decision"}
    )
    assert escalated["status"] == "escalated"
    inbox = await person.ok("GET", "/inbox")
    [question] = await person.ok("GET", f"/conversations/{inbox['id']}/messages")
    assert question["kind"] == "question" and question["author"] == "coder"
    assert "Needs a legal decision" in question["content"]
    runs = {r["id"]: r["status"] for r in await person.ok("GET", "/runs")}
    assert sorted(runs.values()) == ["failed", "failed", "running"]
    # Only the child ends a thread (the parent cancels); an empty result is refused.
    third = await _delegate(architect, run, "Write docs")
    assert (await coder.ok("GET", "/delegations/next"))["delegation"]["thread_id"] == third
    assert (
        await architect.call("POST", f"/delegations/{third}/complete", json={"text": "x"})
    ).status_code == 403
    assert (
        await coder.call("POST", f"/delegations/{third}/complete", json={"text": " "})
    ).status_code == 422
    cancelled = await architect.ok("POST", f"/delegations/{third}/cancel", json={})
    assert cancelled["status"] == "cancelled"


async def test_each_delegation_is_claimed_once_across_instances(
    server: Server, migrated: str
) -> None:
    _process, other = await spawn_server(migrated)
    architect = Actor(server, "alice", "architect")
    run = await architect.start_run()
    threads = {await _delegate(architect, run, f"job {i}") for i in range(6)}

    async def worker(base_url: str) -> list[int]:
        claimed: list[int] = []
        async with mcp_client(base_url, token_for("alice", agent="coder")) as coder:
            while True:
                got = data(await coder.call_tool("next_delegation", {"wait_s": 0.5}))
                if got["delegation"] is None:
                    return claimed
                claimed.append(got["delegation"]["thread_id"])

    results = await asyncio.gather(
        *(worker(b) for b in (server.base_url, other, other, server.base_url))
    )
    claimed = [t for r in results for t in r]
    assert sorted(claimed) == sorted(threads)  # every one, none twice


async def test_unclaimed_and_silent_threads_time_out(make_server) -> None:  # type: ignore[no-untyped-def]
    # 2.5 s: the parent stays heard from between its own calls even on a loaded machine.
    async with make_server(PARLEY_SWEEP_SECONDS=0.2, PARLEY_RUN_SILENCE_TIMEOUT=2.5) as server:
        architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
        run = await architect.start_run()
        unclaimed = await _delegate(architect, run, "Nobody wants this", timeout_s=0.5)
        waited = await architect.ok("GET", f"/delegations/{unclaimed}", params={"wait": 10})
        assert waited["status"] == "timed_out"
        silent = await _delegate(architect, run, "Claimed, then silence")
        assert (await coder.ok("GET", "/delegations/next"))["delegation"]["thread_id"] == silent

        async def closed() -> bool:
            found = await architect.ok("GET", f"/delegations/{silent}")
            return bool(found["status"] == "timed_out")

        # The parent keeps its run alive meanwhile; only the child is silent.
        async def parent_alive() -> bool:
            await architect.ok("GET", f"/runs/{run['id']}/messages")
            return await closed()

        await eventually(parent_alive, within=15)
        refused = await coder.call("POST", f"/conversations/{silent}/messages", json={"text": "hi"})
        assert refused.status_code == 409


async def test_the_person_joins_and_answers_and_a_parent_waits_for_three(server: Server) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    person = Actor(server, "alice")
    run = await architect.start_run()
    threads = [await _delegate(architect, run, f"part {i}") for i in range(3)]
    for _ in threads:
        await coder.ok("GET", "/delegations/next")
    # The person writes into a thread: both agents read it.
    said = await person.post(f"/conversations/{threads[0]}/messages", "Keep it small")
    for agent in (architect, coder):
        seen = await agent.ok("GET", f"/delegations/{threads[0]}/messages", params={"after": 0})
        assert said["id"] in [m["id"] for m in seen]
    # The child asks; the person answers instead of the parent.
    question = await coder.ask(f"/conversations/{threads[1]}/messages", "Tabs or spaces?")
    answer = await person.post(f"/conversations/{threads[1]}/messages", "Spaces", reply_to=question)
    assert answer["answered"] == question
    got = await coder.ok("GET", f"/questions/{question}")
    assert got["answer"]["content"] == "Spaces"
    # The parent waits on all three; they finish in any order.
    waits = [
        asyncio.create_task(architect.ok("GET", f"/delegations/{t}", params={"wait": 20}))
        for t in threads
    ]
    for t in reversed(threads):
        await coder.ok("POST", f"/delegations/{t}/complete", json={"text": f"done {t}"})
    results = await asyncio.wait_for(asyncio.gather(*waits), 10)
    assert [r["result"] for r in results] == [f"done {t}" for t in threads]


async def test_threads_are_private(server: Server, db: Database) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    run = await architect.start_run()
    thread = await _delegate(architect, run, "Secret work")
    await coder.ok("GET", "/delegations/next")
    question = await coder.ask(f"/conversations/{thread}/messages", "Which key?")
    before = await snapshot(db)
    stranger = Actor(server, "alice", "intruder")
    assert (await stranger.call("GET", f"/delegations/{thread}")).status_code == 404
    refused = await stranger.call(
        "POST", f"/conversations/{thread}/messages", json={"text": "mine", "reply_to": question}
    )
    assert refused.status_code == 403 and error_code(refused) == "not_your_run"
    mallory = Actor(server, "mallory", "architect")
    for method, path, body in (
        ("GET", f"/delegations/{thread}", None),
        ("GET", f"/delegations/{thread}/messages", None),
        ("POST", f"/delegations/{thread}/cancel", {}),
        ("POST", f"/conversations/{thread}/messages", {"text": "x"}),
        ("POST", f"/runs/{run['id']}/delegations", {"agent": "coder", "task": "x"}),
    ):
        assert (await mallory.call(method, path, json=body)).status_code == 404, path
    async with mcp_client(server.base_url, token_for("mallory", agent="architect")) as client:
        result = await client.call_tool("wait_for_child", {"thread_id": thread, "timeout_s": 0})
        assert result.is_error
        assert data(await client.call_tool("next_delegation", {"wait_s": 0}))["delegation"] is None
    assert await snapshot(db) == before
