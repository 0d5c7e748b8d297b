"""Each plain command the offline model must understand, end to end: the
real HTTP chat endpoint, the real agent runner, the real MCP tools and real PostgreSQL.

For each phrase: the tool call recorded (in the response and in the stored reply), what
happened to the to-do list (seen through the REST API, as the UI's task panel sees it), and
a reply that says what was done in plain words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from parley.assistant.offline import HELP

# The to-do list every phrase starts from: ids 1..4 (tables restart their ids per test).
SEED = [("buy bread", None), ("call dad", "about sunday"), ("pay rent", None), ("old chore", None)]
DONE = {4}


@dataclass
class Phrase:
    text: str
    tool: str
    parameters: dict[str, Any]
    # the to-do list afterwards: {id: (title, description, completed)}
    after: dict[int, tuple[str, str | None, bool]]
    # words the reply must contain (case-insensitive), and must not
    says: list[str]
    not_says: list[str] = field(default_factory=list)


def seeded() -> dict[int, tuple[str, str | None, bool]]:
    return {i: (title, desc, i in DONE) for i, (title, desc) in enumerate(SEED, start=1)}


def with_(**changes: tuple[str, str | None, bool] | None) -> dict[int, Any]:
    tasks = seeded()
    for key, value in changes.items():
        task_id = int(key.removeprefix("t"))
        if value is None:
            del tasks[task_id]
        else:
            tasks[task_id] = value
    return tasks


PHRASES = [
    Phrase(
        "add a task to buy milk",
        "add_task",
        {"title": "buy milk"},
        with_(t5=("buy milk", None, False)),
        ["added", "buy milk"],
    ),
    Phrase(
        "add task: call mom",
        "add_task",
        {"title": "call mom"},
        with_(t5=("call mom", None, False)),
        ["added", "call mom"],
    ),
    Phrase(
        "remind me to water the plants",
        "add_task",
        {"title": "water the plants"},
        with_(t5=("water the plants", None, False)),
        ["added", "water the plants"],
    ),
    Phrase(
        "list my tasks",
        "list_tasks",
        {"status": "all"},
        seeded(),
        ["buy bread", "call dad", "pay rent", "old chore"],
    ),
    Phrase(
        "show my pending tasks",
        "list_tasks",
        {"status": "pending"},
        seeded(),
        ["pending", "buy bread", "call dad", "pay rent"],
        ["old chore"],
    ),
    Phrase(
        "what have I completed?",
        "list_tasks",
        {"status": "completed"},
        seeded(),
        ["completed", "old chore"],
        ["buy bread", "call dad", "pay rent"],
    ),
    Phrase(
        "mark task 3 as done",
        "complete_task",
        {"task_id": 3},
        with_(t3=("pay rent", None, True)),
        ["done", "pay rent"],
    ),
    Phrase(
        "complete task 3",
        "complete_task",
        {"task_id": 3},
        with_(t3=("pay rent", None, True)),
        ["done", "pay rent"],
    ),
    Phrase(
        "delete task 2",
        "delete_task",
        {"task_id": 2},
        with_(t2=None),
        ["deleted", "call dad"],
    ),
    Phrase(
        "rename task 1 to call mom",
        "update_task",
        {"task_id": 1, "title": "call mom"},
        with_(t1=("call mom", None, False)),
        ["renamed", "call mom"],
    ),
    Phrase(
        "update task 1 description to use oat milk",
        "update_task",
        {"task_id": 1, "description": "use oat milk"},
        with_(t1=("buy bread", "use oat milk", False)),
        ["description", "buy bread"],
    ),
]


async def seed(server, user: str = "alice") -> None:
    headers = server.headers(user)
    for i, (title, description) in enumerate(SEED, start=1):
        created = await server.client.post(
            f"/api/{user}/tasks", json={"title": title, "description": description}, headers=headers
        )
        assert created.status_code == 201 and created.json()["number"] == i, created.text
        if i in DONE:
            done = await server.client.patch(
                f"/api/{user}/tasks/{i}", json={"completed": True}, headers=headers
            )
            assert done.status_code == 200, done.text


async def task_list(server, user: str = "alice") -> dict[int, tuple[str, str | None, bool]]:
    response = await server.client.get(f"/api/{user}/tasks", headers=server.headers(user))
    assert response.status_code == 200, response.text
    return {t["number"]: (t["title"], t["description"], t["completed"]) for t in response.json()}


async def stored_reply(server, conversation_id: int, user: str = "alice") -> dict[str, Any]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/messages", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    messages = response.json()
    assert [m["role"] for m in messages] == ["user", "assistant"]
    return messages[-1]


def assert_plain_words(reply: str) -> None:
    assert reply.strip(), "the reply is empty"
    for machine in ("{", "}", '"task_id"', "Error executing tool", "Traceback", "None"):
        assert machine not in reply, f"the reply is not plain words ({machine!r}): {reply!r}"


@pytest.mark.parametrize("phrase", PHRASES, ids=[p.text for p in PHRASES])
async def test_each_offline_phrase_calls_its_tool_and_says_what_it_did(server, phrase):
    await seed(server)
    response = await server.chat("alice", phrase.text)
    assert response.status_code == 200, response.text
    body = response.json()

    # the tool call, as returned and as stored with the reply
    [record] = body["tool_calls"]
    assert record["tool"] == phrase.tool
    assert record["parameters"] == phrase.parameters
    assert isinstance(record["result"], dict) and "error" not in record["result"], record
    if phrase.tool != "list_tasks":
        expected_status = {
            "add_task": "created",
            "complete_task": "completed",
            "delete_task": "deleted",
            "update_task": "updated",
        }[phrase.tool]
        assert record["result"]["status"] == expected_status
    stored = await stored_reply(server, body["conversation_id"])
    assert stored["tool_calls"] == body["tool_calls"]
    assert stored["content"] == body["response"] and stored["error"] is False

    # the effect, as the task panel sees it
    assert await task_list(server) == phrase.after

    # the words
    reply = body["response"]
    assert_plain_words(reply)
    for words in phrase.says:
        assert words in reply.lower(), f"{words!r} missing from {reply!r}"
    for words in phrase.not_says:
        assert words not in reply.lower(), f"{words!r} should not be in {reply!r}"


async def test_phrases_keep_the_persons_casing_and_ignore_punctuation_and_spacing(server):
    response = await server.chat("alice", "  Add a task to   Call Mom about Sunday!  ")
    assert response.status_code == 200, response.text
    [record] = response.json()["tool_calls"]
    assert record["parameters"] == {"title": "Call Mom about Sunday"}
    assert [t[0] for t in (await task_list(server)).values()] == ["Call Mom about Sunday"]


async def test_empty_lists_are_said_plainly(server):
    for text, words in (
        ("list my tasks", "no tasks"),
        ("show my pending tasks", "no pending tasks"),
        ("what have I completed?", "haven't completed"),
    ):
        response = await server.chat("alice", text)
        assert response.status_code == 200, response.text
        assert response.json()["tool_calls"][0]["tool"] == "list_tasks"
        assert words in response.json()["response"].lower()


OTHER_TEXTS = [
    "what's the weather?",
    "hello",
    "tell me a joke about tasks",
    "delete everything",
    "add",
]


async def test_anything_else_gets_the_help_text_and_no_tool_call(server):
    await seed(server)
    before = await task_list(server)
    for text in OTHER_TEXTS:
        response = await server.chat("alice", text)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["tool_calls"] == [], text
        assert body["response"] == HELP, text
        stored = await stored_reply(server, body["conversation_id"])
        assert stored["tool_calls"] in (None, []) and stored["content"] == HELP
    assert "add a task" in HELP.lower() and "list my tasks" in HELP.lower()  # shows what it can do
    assert await task_list(server) == before


UNKNOWN_ID_TEXTS = [
    ("delete task 99", "delete_task"),
    ("mark task 99 as done", "complete_task"),
    ("complete task 99", "complete_task"),
    ("rename task 99 to call mom", "update_task"),
    ("update task 99 description to use oat milk", "update_task"),
]


async def test_an_unknown_task_id_is_explained_and_changes_nothing(server):
    await seed(server)
    before = await task_list(server)
    for text, tool in UNKNOWN_ID_TEXTS:
        response = await server.chat("alice", text)
        assert response.status_code == 200, response.text
        body = response.json()
        [record] = body["tool_calls"]
        assert record["tool"] == tool and record["parameters"]["task_id"] == 99
        assert "error" in record["result"]
        reply = body["response"]
        assert_plain_words(reply)
        assert "99" in reply and "not found" in reply.lower(), reply
        assert "couldn't" in reply.lower() or "could not" in reply.lower(), reply
        assert await task_list(server) == before, text
        stored = await stored_reply(server, body["conversation_id"])
        assert stored["error"] is False  # a tool saying no is an answer, not a failed turn
    # and the conversation carries on
    again = await server.chat("alice", "list my tasks", body["conversation_id"])
    assert again.status_code == 200 and "buy bread" in again.json()["response"]


async def test_another_users_task_id_is_not_found_through_chat_either(server):
    await seed(server, "bob")
    bobs = await task_list(server, "bob")
    response = await server.chat("alice", "delete task 1")
    assert response.status_code == 200, response.text
    assert "not found" in response.json()["response"].lower()
    assert await task_list(server, "bob") == bobs


async def test_a_work_session_request_says_plainly_when_work_mode_is_off(server):
    response = await server.chat("alice", "start a work session to fix the failing test")
    body = response.json()
    assert response.status_code == 200
    # Work mode is off: the model is not even offered the work-session tools.
    assert body["tool_calls"] == [], body
    assert "Work mode is off on this server" in body["response"]
    listed = await server.client.get("/api/alice/conversations", headers=server.headers("alice"))
    assert [c["mode"] for c in listed.json()] == ["chat"]  # no work conversation was made
