"""Two instances on a Citus cluster, for people whose rows live on either worker: turns and
their history, tasks and search, a reply streaming live to a watcher on the other instance,
the person's event stream and an agent's long poll fed by writes made elsewhere."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.cluster.helpers import Placement
from tests.conftest import Server, eventually
from tests.realtime.sse import events, take
from tests.runs.helpers import Actor

pytestmark = pytest.mark.cluster


async def _new_conversation(server: Server, user: str) -> int:
    made = await server.client.post(
        f"/api/{user}/conversations", json={"title": "on the cluster"}, headers=server.headers(user)
    )
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


async def test_turns_history_tasks_and_search_for_people_on_both_workers(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("turns"):
        first = await one.chat(user, "add a task to fix the gate")
        assert first.status_code == 200, first.text
        conversation_id = first.json()["conversation_id"]
        second = await two.chat(user, "list my tasks", conversation_id)
        assert second.status_code == 200, second.text
        assert "fix the gate" in second.json()["response"]

        history = await two.client.get(
            f"/api/{user}/conversations/{conversation_id}/messages", headers=two.headers(user)
        )
        said = [(m["role"], m["content"]) for m in history.json()]
        assert said[0] == ("user", "add a task to fix the gate")
        assert said[2] == ("user", "list my tasks")
        assert [role for role, _ in said] == ["user", "assistant", "user", "assistant"]
        ids = [m["id"] for m in history.json()]
        assert ids == sorted(ids)  # written on the person's node, in order

        tasks = await one.client.get(f"/api/{user}/tasks", headers=one.headers(user))
        assert [(t["number"], t["title"]) for t in tasks.json()] == [(1, "fix the gate")]
        found = await two.client.get(
            f"/api/{user}/search", params={"q": "gate"}, headers=two.headers(user)
        )
        assert found.status_code == 200, found.text
        hits = found.json()["conversations"]
        assert [h["id"] for h in hits] == [conversation_id] and hits[0]["message"]
        # The start of a word, and a typo: the trigram index is on the person's node too.
        for q in ("gat", "gatee"):
            found = await one.client.get(
                f"/api/{user}/search", params={"q": q}, headers=one.headers(user)
            )
            assert [h["id"] for h in found.json()["conversations"]] == [conversation_id], q

        listed = await two.client.get(f"/api/{user}/conversations", headers=two.headers(user))
        assert [c["id"] for c in listed.json()] == [conversation_id]


async def _through_the_reply(stream) -> tuple[list[str], str, str]:  # type: ignore[no-untyped-def]
    """The stored messages, the deltas' text and the stored reply, up to that reply. (The
    person's stored message and the reply's first deltas come by different ways, stored rows
    by the readers of the nodes, live events by the coordinator's channel: either may be
    first.)"""
    stored: list[str] = []
    text = ""
    async for event in stream:
        if event.event == "delta":
            text += event.json()["text"]
        elif event.event == "message":
            stored.append(event.json()["content"])
            if event.json()["role"] == "assistant":
                return stored, text, event.json()["content"]
    raise AssertionError("the stream ended before the stored reply")


async def test_a_reply_streams_live_to_a_watcher_on_the_other_instance(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("live"):
        conversation_id = await _new_conversation(one, user)
        async with two.client.stream(
            "GET",
            f"/api/{user}/conversations/{conversation_id}/events",
            headers=two.headers(user),
        ) as response:
            assert response.status_code == 200
            stream = events(response)
            await two.following(conversation_id)
            turn = asyncio.create_task(one.chat(user, "hello there", conversation_id))
            stored, text, reply = await _through_the_reply(stream)
        assert stored == ["hello there", reply]
        assert text == reply == (await turn).json()["response"]


async def test_the_persons_event_stream_and_an_agents_long_poll_hear_writes_made_elsewhere(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("events"):
        async with two.client.stream(
            "GET", f"/api/{user}/events", headers=two.headers(user)
        ) as response:
            stream = events(response)
            [ready] = await take(stream, 1, kinds={"ready"})
            added = await one.client.post(
                f"/api/{user}/tasks", json={"title": "call the plumber"}, headers=one.headers(user)
            )
            assert added.status_code == 201, added.text
            [task] = await take(stream, 1, kinds={"task"})
            assert int(task.id) > int(ready.id)
            assert task.json()["action"] == "created"
            assert task.json()["task"]["title"] == "call the plumber"

        # An agent's long poll on one instance; the person writes through the other.
        agent = Actor(one, user, "scout")
        run = await agent.start_run("watching")
        assert await agent.ok("GET", f"/runs/{run['id']}/messages") == []
        waiting = asyncio.create_task(
            Actor(two, user, "scout").ok(
                "GET", f"/runs/{run['id']}/messages", params={"after": 0, "wait": 20}
            )
        )
        await two.following(run["conversation_id"])
        await Actor(one, user).post(f"/runs/{run['id']}/messages", "the plumber comes at noon")
        got = await waiting
        assert [m["content"] for m in got] == ["the plumber comes at noon"]


async def test_a_watcher_keeps_getting_messages_across_a_restart_of_the_persons_worker(
    instances: tuple[Server, Server], placement: Placement, cluster: Any
) -> None:
    """The instance's reader of that node loses its connection, opens it again and reads on
    from its cursor; meanwhile nothing of that person can be written, and afterwards every
    message reaches the stream once, in order."""
    one, two = instances
    user = await placement.person_on(cluster.workers[1], "restart")
    worker = await placement.worker_of(user)
    agent = Actor(one, user, "scout")
    run = await agent.start_run("across a restart")
    reconnects = two.app.services.notifier.counters.reconnects
    async with two.client.stream(
        "GET",
        f"/api/{user}/conversations/{run['conversation_id']}/events",
        params={"after": 0},
        headers=two.headers(user),
    ) as response:
        stream = events(response)
        await two.following(run["conversation_id"])
        await agent.post(f"/runs/{run['id']}/messages", "before")
        [before] = await take(stream, 1, kinds={"message"})
        await asyncio.to_thread(cluster.stop_node, worker)
        try:
            down = await agent.call(
                "POST", f"/runs/{run['id']}/messages", json={"text": "while it is down"}
            )
            assert down.status_code == 503, down.text  # nothing stored, and said so
        finally:
            await asyncio.to_thread(cluster.start_node, worker)

        async def back() -> bool:
            sent = await agent.call("POST", f"/runs/{run['id']}/messages", json={"text": "after"})
            return sent.status_code == 201

        await eventually(back, within=30)
        [after] = await take(stream, 1, kinds={"message"})
    assert (before.json()["content"], after.json()["content"]) == ("before", "after")
    assert int(after.id) > int(before.id)
    assert two.app.services.notifier.counters.reconnects > reconnects
