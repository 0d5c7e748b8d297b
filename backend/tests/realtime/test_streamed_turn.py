"""POST /chat with Accept: text/event-stream, read by a real SSE client."""

from __future__ import annotations

import asyncio

from tests.conftest import eventually
from tests.realtime.sse import events

SSE = {"Accept": "text/event-stream"}


async def test_a_streamed_turn_sends_message_tool_events_deltas_and_done(server):
    received = []
    async with server.client.stream(
        "POST",
        "/api/alice/chat",
        json={"message": "add a task to buy milk"},
        headers={**server.headers("alice"), **SSE},
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        async for event in events(response):
            received.append(event)
    kinds = [e.event for e in received]
    assert not {"turn_end", "reply_end"} & set(kinds)  # the event stream's, not the turn's
    assert kinds[0] == "message" and received[0].json()["content"] == "add a task to buy milk"
    assert received[0].id == str(received[0].json()["id"])
    assert kinds[1:3] == ["tool_call", "tool_result"]
    assert received[1].json()["parameters"] == {"title": "buy milk"}
    assert received[2].json()["result"]["status"] == "created"
    deltas = [e.json()["text"] for e in received if e.event == "delta"]
    assert len(deltas) > 1
    assert kinds[-2:] == ["message", "done"]
    stored, done = received[-2].json(), received[-1].json()
    assert "".join(deltas) == stored["content"] == done["response"] == "Added task #1 'buy milk'."
    # `done` carries exactly the JSON body of the non-streamed turn.
    plain = await server.chat("alice", "add a task to buy bread", done["conversation_id"])
    assert set(done) == set(plain.json()) == {"conversation_id", "response", "tool_calls"}
    assert done["tool_calls"] == stored["tool_calls"]


async def test_streamed_turn_refusals_are_plain_http_errors(server):
    headers = {**server.headers("alice"), **SSE}
    empty = await server.client.post("/api/alice/chat", json={"message": " "}, headers=headers)
    assert empty.status_code == 422 and empty.json()["error"]["code"] == "validation_error"
    missing = await server.client.post(
        "/api/alice/chat", json={"message": "hi", "conversation_id": 999}, headers=headers
    )
    assert missing.status_code == 404


async def test_a_model_failure_is_an_error_event_and_is_stored(make_server, db):
    from agents.testing import ScriptedModel

    model = ScriptedModel([RuntimeError("no model today")])
    async with make_server(model=model) as server:
        response_cm = server.client.stream(
            "POST",
            "/api/alice/chat",
            json={"message": "hello"},
            headers={**server.headers("alice"), **SSE},
        )
        async with response_cm as response:
            received = [ev async for ev in events(response)]
    assert [e.event for e in received] == ["message", "message", "error"]
    assert received[1].json()["error"] is True
    error = received[2].json()["error"]
    assert (
        error["code"] == "model_error"
        and error["conversation_id"] == received[0].json()["conversation_id"]
    )


async def test_a_client_that_disconnects_mid_turn_does_not_cancel_it(make_server, db):
    async with make_server(PARLEY_MODEL_DELAY=0.5) as server:
        async with server.client.stream(
            "POST",
            "/api/alice/chat",
            json={"message": "add a task to survive"},
            headers={**server.headers("alice"), **SSE},
        ) as response:
            async for event in events(response):
                assert event.event == "message"  # the stored user message, then hang up
                break

        async def reply_stored() -> bool:
            async with db.connection() as conn:
                roles = await conn.fetch("SELECT role FROM messages ORDER BY id")
            return [r["role"] for r in roles] == ["user", "assistant"]

        await eventually(reply_stored)
        tasks = (
            await server.client.get("/api/alice/tasks", headers=server.headers("alice"))
        ).json()
    assert [t["title"] for t in tasks] == ["survive"]
    async with db.connection() as conn:
        version = await conn.fetchval("SELECT version FROM conversations")
    assert version == 1
    await asyncio.sleep(0)
