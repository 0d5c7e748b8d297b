"""GET /api/{user}/events: one stream per person, from any writer, resumable, across
instances."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from httpx_sse import ServerSentEvent as Event

from tests.conftest import Server, spawn_server, token_for
from tests.realtime.sse import events, take
from tests.runs.helpers import Actor
from tests.tools.test_mcp_http import mcp_client

KINDS = {"task", "conversation", "unread", "run", "question"}


@asynccontextmanager
async def person_stream(
    base_url: str, user: str = "alice", **headers: str
) -> AsyncIterator[AsyncIterator[Event]]:
    async with (
        httpx.AsyncClient(base_url=base_url, timeout=30) as client,
        client.stream(
            "GET",
            f"/api/{user}/events",
            headers={"Authorization": f"Bearer {token_for(user)}", **headers},
        ) as response,
    ):
        assert response.status_code == 200, await response.aread()
        stream = events(response)
        ready = (await take(stream, 1))[0]
        assert ready.event == "ready" and ready.id == str(ready.json()["cursor"])
        yield stream


async def until(stream: AsyncIterator[Event], last: tuple[Any, ...]) -> list[Event]:
    """Events (heartbeats aside) up to the one whose summary is `last`, within 10 s."""
    seen: list[Event] = []

    async def collect() -> None:
        async for event in stream:
            if event.event in KINDS:
                seen.append(event)
                if summary(event) == last:
                    return

    await asyncio.wait_for(collect(), 10)
    return seen


def summary(event: Event) -> tuple[str, Any, ...]:
    data = event.json()
    if event.event == "task":
        return ("task", data["action"], data["task"]["title"] if data["task"] else None)
    if event.event == "conversation":
        conv = data["conversation"]
        return ("conversation", data["action"], conv["mode"] if conv else None)
    if event.event == "unread":
        return ("unread", data["unread"])
    if event.event == "run":
        return ("run", data["run"]["status"], data["run"]["progress"])
    return ("question", data["action"], data["answer"]["content"] if data["answer"] else None)


async def test_changes_from_every_writer_arrive_in_order(server: Server) -> None:
    person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
    async with person_stream(server.base_url) as stream:
        task = await person.ok("POST", "/tasks", 201, json={"title": "buy milk"})
        async with mcp_client(server.base_url, token_for("alice", agent="planner")) as mcp:
            await mcp.call_tool("update_task", {"task_id": task["number"], "title": "buy oat milk"})
        await person.call("DELETE", f"/tasks/{task['number']}")
        conversation = await person.ok("POST", "/conversations", 201, json={})
        await person.ok("PATCH", f"/conversations/{conversation['id']}", json={"title": "Plans"})
        await person.call("DELETE", f"/conversations/{conversation['id']}")
        got = await take(stream, 6, kinds=KINDS)
        # Each event carries the state current when it is sent (never a stale one), so only
        # the order of the actions is fixed here, and the last word.
        assert [(e.event, e.json()["action"]) for e in got] == [
            ("task", "created"),
            ("task", "updated"),
            ("task", "deleted"),
            ("conversation", "created"),
            ("conversation", "updated"),
            ("conversation", "deleted"),
        ]
        assert got[2].json() == {"action": "deleted", "task": None, "number": task["number"]}
        assert got[5].json() == {
            "action": "deleted",
            "conversation": None,
            "id": conversation["id"],
        }
        assert [int(e.id or 0) for e in got] == sorted(int(e.id or 0) for e in got)

        run = await agent.start_run()
        posted = await agent.post("/inbox/messages", "hello")
        question = await agent.ask(f"/runs/{run['id']}/messages", "Tea or coffee?")
        await person.post(f"/runs/{run['id']}/messages", "Tea", reply_to=question)
        got = [summary(e) for e in await until(stream, ("question", "answered", "Tea"))]
        assert ("run", "running", None) in got
        assert ("conversation", "created", "inbox") in got
        assert ("unread", 1) in got  # the inbox's first message, and the run's question
        assert ("question", "opened", None) in got and ("question", "answered", "Tea") in got
        assert got.index(("question", "opened", None)) < got.index(("question", "answered", "Tea"))
        assert posted["conversation_id"]


async def test_resuming_replays_exactly_what_was_missed(server: Server) -> None:
    person = Actor(server, "alice")
    async with person_stream(server.base_url) as stream:
        await person.ok("POST", "/tasks", 201, json={"title": "one"})
        (seen,) = await take(stream, 1, kinds=KINDS)
    assert seen.id is not None
    for title in ("two", "three"):
        await person.ok("POST", "/tasks", 201, json={"title": title})
    async with person_stream(server.base_url, **{"Last-Event-ID": seen.id}) as stream:
        missed = await take(stream, 2, kinds=KINDS)
    assert [e.json()["task"]["title"] for e in missed] == ["two", "three"]
    assert int(missed[0].id or 0) > int(seen.id)


async def test_another_instance_changes_reach_the_stream(server: Server, migrated: str) -> None:
    _process, other = await spawn_server(migrated)
    async with person_stream(server.base_url) as stream:
        async with httpx.AsyncClient(base_url=other, timeout=30) as client:
            response = await client.post(
                "/api/alice/tasks", json={"title": "elsewhere"}, headers=server.headers("alice")
            )
            assert response.status_code == 201
        (event,) = await take(stream, 1, kinds=KINDS)
    assert event.json()["task"]["title"] == "elsewhere"


async def test_the_stream_is_private_and_checks_its_cursor(server: Server) -> None:
    response = await server.client.get("/api/alice/events", headers=server.headers("mallory"))
    assert response.status_code == 403
    response = await server.client.get(
        "/api/alice/events", headers={**server.headers("alice"), "Last-Event-ID": "x1"}
    )
    assert response.status_code == 400
    # Mallory's own stream never shows Alice's changes.
    async with person_stream(server.base_url, "mallory") as stream:
        await Actor(server, "alice").ok("POST", "/tasks", 201, json={"title": "alice's"})
        await Actor(server, "mallory").ok("POST", "/tasks", 201, json={"title": "mallory's"})
        (event,) = await take(stream, 1, kinds=KINDS)
    assert event.json()["task"]["title"] == "mallory's"
