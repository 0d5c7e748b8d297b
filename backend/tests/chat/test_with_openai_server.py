"""The turn against a fake OpenAI-compatible server (tests/fakes): what the model is sent is
checked request by request, as a strict server (alternating roles) would check it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests.conftest import Server
from tests.fakes.openai_server import FakeOpenAI, call, fail, hang, running, say


@asynccontextmanager
async def with_fake(make_server: Any) -> AsyncIterator[tuple[Server, FakeOpenAI]]:
    async with (
        running(FakeOpenAI()) as fake,
        make_server(OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model") as server,
    ):
        yield server, fake


def _roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"] if m["role"] != "system"]


async def _stored(server: Server, conversation_id: int) -> list[dict[str, Any]]:
    response = await server.client.get(
        f"/api/alice/conversations/{conversation_id}/messages", headers=server.headers("alice")
    )
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()
    return messages


async def test_earlier_tool_calls_and_results_are_replayed_to_the_model(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(call("add_task", title="buy milk"), say("Added it."))
        first = await server.chat("alice", "add a task to buy milk")
        assert first.status_code == 200, first.text
        assert first.json()["tool_calls"][0]["result"]["task_id"] == 1
        fake.enqueue(say("It is task 1."))
        second = await server.chat("alice", "what is its number?", first.json()["conversation_id"])
    assert second.status_code == 200, second.text
    sent = fake.requests[-1]["messages"]
    [with_calls] = [m for m in sent if m.get("tool_calls")]
    assert [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in with_calls["tool_calls"]
    ] == [("add_task", {"title": "buy milk"})]
    [result] = [m for m in sent if m["role"] == "tool"]
    assert result["tool_call_id"] == with_calls["tool_calls"][0]["id"]
    assert json.loads(result["content"])["task_id"] == 1
    assert _roles(fake.requests[-1]) == ["user", "assistant", "tool", "assistant", "user"]


async def test_after_a_failed_turn_the_next_one_still_alternates_roles(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(fail(400))
        failed = await server.chat("alice", "hello")
        assert failed.status_code == 502, failed.text
        conversation_id = failed.json()["error"]["conversation_id"]
        fake.enqueue(say("Hi again."))
        again = await server.chat("alice", "hello?", conversation_id)
        assert again.status_code == 200, again.text
        fake.enqueue(say("Still here."))
        third = await server.chat("alice", "and now?", conversation_id)
    assert third.status_code == 200, third.text
    assert _roles(fake.requests[-1]) == ["user", "assistant", "user", "assistant", "user"]


async def test_retry_reruns_the_failed_turn_on_its_stored_message(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(fail(400))
        failed = await server.chat("alice", "add a task to call mom")
        conversation_id = failed.json()["error"]["conversation_id"]
        fake.enqueue(say("Done this time."))
        retried = await server.client.post(
            "/api/alice/chat",
            json={"conversation_id": conversation_id, "retry": True},
            headers=server.headers("alice"),
        )
        assert retried.status_code == 200, retried.text
        assert retried.json()["response"] == "Done this time."
        stored = await _stored(server, conversation_id)
        again = await server.client.post(
            "/api/alice/chat",
            json={"conversation_id": conversation_id, "retry": True},
            headers=server.headers("alice"),
        )
    assert [m["content"] for m in stored if m["role"] == "user"] == ["add a task to call mom"]
    assert [(m["role"], m["error"]) for m in stored] == [
        ("user", False),
        ("assistant", True),
        ("assistant", False),
    ]
    # The model saw the person's message once, as the last thing.
    assert [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "user"] == [
        "add a task to call mom"
    ]
    assert again.status_code == 409 and again.json()["error"]["code"] == "nothing_to_retry"


async def test_stop_ends_a_hung_reply_at_once_and_frees_the_conversation(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("Ready."))
        first = await server.chat("alice", "hello")
        conversation_id = first.json()["conversation_id"]
        fake.enqueue(hang("Let me think"))
        turn = asyncio.create_task(server.chat("alice", "a hard question", conversation_id))
        await asyncio.wait_for(fake.hanging.wait(), timeout=10)
        stop_url = f"/api/alice/conversations/{conversation_id}/stop"
        stopped = await server.client.post(stop_url, headers=server.headers("alice"))
        answer = await asyncio.wait_for(turn, timeout=10)
        stored = await _stored(server, conversation_id)
        fake.enqueue(say("Free again."))
        after = await server.chat("alice", "still there?", conversation_id)
        nothing = await server.client.post(stop_url, headers=server.headers("alice"))
    assert stopped.status_code == 200 and stopped.json() == {"stopped": True}
    assert answer.status_code == 200 and answer.json()["response"] == "Let me think"
    assert stored[-1]["content"] == "Let me think" and stored[-1]["meta"]["stopped"] is True
    assert after.status_code == 200 and after.json()["response"] == "Free again."
    assert nothing.json() == {"stopped": False}


async def test_stop_reaches_a_turn_running_on_another_instance(make_server):
    async with running(FakeOpenAI()) as fake:
        settings = {"OPENAI_BASE_URL": fake.base_url, "PARLEY_MODEL": "fake-model"}
        async with make_server(**settings) as a, make_server(**settings) as b:
            fake.enqueue(hang("Half an answer"))
            turn = asyncio.create_task(a.chat("alice", "a hard question"))
            await asyncio.wait_for(fake.hanging.wait(), timeout=10)
            [conversation] = (
                await b.client.get("/api/alice/conversations", headers=b.headers("alice"))
            ).json()
            stopped = await b.client.post(
                f"/api/alice/conversations/{conversation['id']}/stop",
                headers=b.headers("alice"),
            )
            answer = await asyncio.wait_for(turn, timeout=10)
    assert stopped.json() == {"stopped": True}
    assert answer.status_code == 200 and answer.json()["response"] == "Half an answer"


async def test_a_stopped_reply_keeps_the_tool_calls_already_made(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(call("add_task", title="buy milk"), hang("I added"))
        turn = asyncio.create_task(server.chat("alice", "add a task to buy milk"))
        await asyncio.wait_for(fake.hanging.wait(), timeout=10)
        [conversation] = (
            await server.client.get("/api/alice/conversations", headers=server.headers("alice"))
        ).json()
        await server.client.post(
            f"/api/alice/conversations/{conversation['id']}/stop", headers=server.headers("alice")
        )
        answer = (await asyncio.wait_for(turn, timeout=10)).json()
        stored = await _stored(server, conversation["id"])
    assert answer["response"] == "I added"
    [record] = stored[-1]["tool_calls"]
    assert (record["tool"], record["result"]["title"]) == ("add_task", "buy milk")
    assert stored[-1]["meta"]["stopped"] is True
