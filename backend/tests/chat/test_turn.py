"""The chat turn's rules against real PostgreSQL, the real runner and real HTTP."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from agents.testing import ScriptedModel, assistant_message

from parley.assistant.history import FAILED_NOTE
from parley.messages.store import StoredMessage, messages_after
from tests.conftest import eventually


async def _messages(db, conversation_id: int, user_id: str = "alice") -> list[StoredMessage]:
    async with db.connection() as conn:
        return await messages_after(
            conn, user_id=user_id, conversation_id=conversation_id, after=0, limit=10_000
        )


async def _conversation(db, conversation_id: int) -> SimpleNamespace:
    async with db.connection() as conn:
        row = await conn.fetchrow("SELECT * FROM conversations WHERE id = $1", conversation_id)
    assert row is not None
    return SimpleNamespace(**dict(row))


async def _claimed(db, conversation_id: int) -> bool:
    return (await _conversation(db, conversation_id)).turn_id is not None


def _input_texts(call) -> list[str]:
    return [item["content"] for item in call.input if isinstance(item, dict) and "content" in item]


async def test_a_turn_stores_exactly_the_user_and_the_assistant_message(server, db):
    response = await server.chat("alice", "add a task to buy milk")
    assert response.status_code == 200
    body = response.json()
    messages = await _messages(db, body["conversation_id"])
    assert [(m.role, m.content) for m in messages] == [
        ("user", "add a task to buy milk"),
        ("assistant", body["response"]),
    ]
    assert (await _conversation(db, body["conversation_id"])).version == 1


async def test_tool_calls_round_trip_through_jsonb(server, db):
    body = (await server.chat("alice", "add a task to buy milk")).json()
    assert body["tool_calls"] == [
        {
            "tool": "add_task",
            "parameters": {"title": "buy milk"},
            "result": {"task_id": 1, "status": "created", "title": "buy milk"},
        }
    ]
    listed = await server.client.get(
        f"/api/alice/conversations/{body['conversation_id']}/messages",
        headers=server.headers("alice"),
    )
    assert listed.json()[-1]["tool_calls"] == body["tool_calls"]
    async with db.connection() as conn:
        [row] = await conn.fetch(
            "SELECT jsonb_typeof(tool_calls), tool_calls->0->>'tool', "
            "tool_calls->0->'result'->>'status' FROM messages WHERE role = 'assistant'"
        )
    assert tuple(row) == ("array", "add_task", "created")


async def test_history_is_capped_at_the_limit_and_keeps_the_newest(make_server, db):
    model = ScriptedModel([[assistant_message(f"reply {i}")] for i in range(6)])
    async with make_server(model=model, PARLEY_HISTORY_LIMIT=4) as server:
        conversation_id = None
        for i in range(6):
            response = await server.chat("alice", f"message {i}", conversation_id)
            assert response.status_code == 200
            conversation_id = response.json()["conversation_id"]
    last_input = _input_texts(model.calls[-1])
    # The window's first message is a reply: it is dropped, as the model's input starts with
    # the person.
    assert last_input == ["message 4", "reply 4", "message 5"]
    first_input = _input_texts(model.calls[0])
    assert first_input == ["message 0"]


async def test_a_conversation_continues_on_another_instance(make_server, db):
    """Stateless: the second instance knows the conversation only from the database."""
    model_b = ScriptedModel([[assistant_message("seen it")]])
    async with make_server() as a, make_server(model=model_b) as b:
        first = (await a.chat("alice", "add a task to buy milk")).json()
        second = await b.chat("alice", "what did I just say?", first["conversation_id"])
    assert second.status_code == 200
    assert _input_texts(model_b.calls[0]) == [
        "add a task to buy milk",
        first["response"],
        "what did I just say?",
    ]


async def test_a_failing_model_stores_an_error_and_leaves_the_conversation_usable(make_server, db):
    model = ScriptedModel([RuntimeError("upstream exploded")])
    async with make_server(model=model) as server:
        failed = await server.chat("alice", "hello")
        assert failed.status_code == 502
        error = failed.json()["error"]
        assert error["code"] == "model_error"
        # The upstream's own words go to the log, not to the person.
        assert error["message"] == "The model ran into an error"
        conversation_id = error["conversation_id"]
        stored = await _messages(db, conversation_id)
        assert [(m.role, m.error) for m in stored] == [("user", False), ("assistant", True)]
        assert "upstream exploded" not in stored[1].content
        assert stored[0].content == "hello"

        model.enqueue([assistant_message("all good now")])
        retried = await server.chat("alice", "hello again", conversation_id)
    assert retried.status_code == 200
    assert retried.json()["response"] == "all good now"
    # The failed reply is not fed back as if it were an answer: a short note keeps the roles
    # alternating.
    assert _input_texts(model.calls[-1]) == ["hello", FAILED_NOTE, "hello again"]


async def test_concurrent_turns_on_one_conversation_never_interleave(make_server, db):
    """20 clients race on one conversation; each retries on 409 until its turn lands."""
    async with make_server(PARLEY_MODEL_DELAY=0.02) as server:
        conversation_id = (await server.chat("alice", "list my tasks")).json()["conversation_id"]
        refusals = 0

        async def send(i: int) -> dict:
            nonlocal refusals
            while True:
                response = await server.chat("alice", f"add a task to item {i}", conversation_id)
                if response.status_code != 409:
                    assert response.status_code == 200, response.text
                    return response.json()
                assert response.json()["error"]["code"] == "turn_in_progress"
                refusals += 1
                await asyncio.sleep(0.01)

        results = await asyncio.gather(*(send(i) for i in range(20)))
        tasks = (
            await server.client.get("/api/alice/tasks", headers=server.headers("alice"))
        ).json()

    assert refusals > 0, "the race never happened: the test proved nothing"
    assert sorted(r["tool_calls"][0]["result"]["title"] for r in results) == sorted(
        f"item {i}" for i in range(20)
    )
    assert len(tasks) == 20 and len({t["title"] for t in tasks}) == 20
    messages = await _messages(db, conversation_id)
    assert len(messages) == 2 + 40
    pairs = list(zip(messages[2::2], messages[3::2], strict=True))
    for user, assistant in pairs:
        assert (user.role, assistant.role) == ("user", "assistant")
        assert assistant.tool_calls[0]["parameters"]["title"] == user.content.removeprefix(
            "add a task to "
        )
    assert (await _conversation(db, conversation_id)).version == 21


async def test_a_refused_turn_stores_nothing_and_runs_no_tool(make_server, db):
    async with make_server(PARLEY_MODEL_DELAY=0.5) as server:
        conversation_id = (await server.chat("alice", "hello")).json()["conversation_id"]
        slow = asyncio.create_task(server.chat("alice", "add a task to first", conversation_id))
        await eventually(lambda: _claimed(db, conversation_id))
        refused = await server.chat("alice", "add a task to second", conversation_id)
        assert refused.status_code == 409
        assert refused.json()["error"]["conversation_id"] == conversation_id
        assert (await slow).status_code == 200
        tasks = (
            await server.client.get("/api/alice/tasks", headers=server.headers("alice"))
        ).json()
    contents = [m.content for m in await _messages(db, conversation_id)]
    assert "add a task to second" not in contents
    assert [t["title"] for t in tasks] == ["first"]
