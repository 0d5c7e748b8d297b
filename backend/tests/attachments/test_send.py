"""Sending attachments with a chat message: the model gets them (and again on later turns,
from PostgreSQL), only their owner sends them, each with one message only."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from tests.attachments.helpers import PNG, error_code, send, uploaded
from tests.conftest import snapshot
from tests.fakes.openai_server import FakeOpenAI, running, say

NOTES = b"The secret word is pineapple.\nSecond line.\n"


def _user_messages(request: dict[str, Any]) -> list[Any]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(p.get("text", "") for p in content if p.get("type") == "text")


async def test_the_model_gets_a_text_file_now_and_again_after_the_history_reload(make_server):
    async with (
        running(FakeOpenAI()) as fake,
        make_server(OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model") as server,
    ):
        attachment_id = await uploaded(server, "alice", "notes.txt", NOTES)
        fake.enqueue(say("Got it."), say("Still pineapple."))
        first = await send(server, "alice", "read this", [attachment_id])
        assert first.status_code == 200, first.text
        conversation_id = first.json()["conversation_id"]
        second = await server.chat("alice", "what was the word?", conversation_id)
        assert second.status_code == 200, second.text
        listed = await server.client.get(
            f"/api/alice/conversations/{conversation_id}/messages",
            headers=server.headers("alice"),
        )
    expected = '<attached file "notes.txt">\n' + NOTES.decode() + "\n</attached file>"
    [now] = _user_messages(fake.requests[0])
    assert now.startswith("read this") and expected in now
    earlier, latest = _user_messages(fake.requests[1])
    assert expected in earlier and latest == "what was the word?"
    [shown] = [m for m in listed.json() if m["role"] == "user" and m["content"] == "read this"]
    assert shown["meta"]["attachments"] == [
        {
            "id": attachment_id,
            "name": "notes.txt",
            "kind": "text",
            "content_type": "text/plain; charset=utf-8",
            "size": len(NOTES),
        }
    ]


async def test_a_long_text_file_reaches_the_model_cut_to_its_bound(make_server):
    async with (
        running(FakeOpenAI()) as fake,
        make_server(OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model") as server,
    ):
        attachment_id = await uploaded(server, "alice", "big.txt", b"z" * 50_000)
        fake.enqueue(say("ok"))
        response = await send(server, "alice", "summarise", [attachment_id])
    assert response.status_code == 200, response.text
    [sent] = _user_messages(fake.requests[0])
    assert "z" * 20_000 in sent and "z" * 20_001 not in sent
    assert "the file has 50000 characters" in sent


async def test_an_image_goes_to_a_model_that_takes_images_as_an_image_part(make_server):
    async with (
        running(FakeOpenAI()) as fake,
        make_server(
            OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model", PARLEY_MODEL_IMAGES=True
        ) as server,
    ):
        attachment_id = await uploaded(server, "alice", "cat.png", PNG, content_type="image/png")
        fake.enqueue(say("A cat."))
        response = await send(server, "alice", "what is this?", [attachment_id])
    assert response.status_code == 200, response.text
    [content] = _user_messages(fake.requests[0])
    assert _text(content) == "what is this?"
    [image] = [p for p in content if p["type"] == "image_url"]
    assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()


async def test_an_image_for_a_model_without_images_is_refused_and_nothing_is_stored(
    make_server, db
):
    async with (
        running(FakeOpenAI()) as fake,
        make_server(OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model") as server,
    ):
        image = await uploaded(server, "alice", "cat.png", PNG, content_type="image/png")
        text = await uploaded(server, "alice", "a.txt", b"hello")
        before = await snapshot(db)
        response = await send(server, "alice", "look", [text, image])
        assert response.status_code == 422
        assert error_code(response) == "model_takes_no_images"
        assert "fake-model" in response.json()["error"]["message"]
        assert "cat.png" in response.json()["error"]["message"]
        assert await snapshot(db) == before
        assert fake.requests == []


async def test_an_image_follows_the_conversations_chosen_model_not_the_servers(make_server, db):
    async with (
        running(FakeOpenAI()) as fake,
        make_server(
            OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model", PARLEY_MODEL_IMAGES=True
        ) as server,
    ):
        fake.enqueue(say("Hello."))
        first = await server.chat("alice", "hi")
        conversation_id = first.json()["conversation_id"]
        chose = await server.client.put(
            f"/api/alice/conversations/{conversation_id}/model",
            json={"model": "offline"},
            headers=server.headers("alice"),
        )
        assert chose.status_code == 200, chose.text
        image = await uploaded(server, "alice", "cat.png", PNG, content_type="image/png")
        before = await snapshot(db)
        response = await send(server, "alice", "look", [image], conversation_id)
        assert response.status_code == 422, response.text
        assert error_code(response) == "model_takes_no_images"
        assert "offline" in response.json()["error"]["message"]
        assert await snapshot(db) == before
        assert len(fake.requests) == 1  # the first turn's only


async def test_the_offline_model_refuses_images_and_says_what_it_got_of_a_text_file(server):
    image = await uploaded(server, "alice", "cat.png", PNG, content_type="image/png")
    refused = await send(server, "alice", "look", [image])
    assert refused.status_code == 422 and error_code(refused) == "model_takes_no_images"
    assert "(offline)" in refused.json()["error"]["message"]
    notes = await uploaded(server, "alice", "notes.txt", NOTES)
    answered = await send(server, "alice", "what is in it?", [notes])
    assert answered.status_code == 200, answered.text
    assert answered.json()["response"] == (
        'I received notes.txt (2 lines). It begins: "The secret word is pineapple.".'
    )
    # A task command with a file attached is still the command.
    task = await send(
        server,
        "alice",
        "add a task to read it",
        [await uploaded(server, "alice", "more.txt", b"x")],
    )
    assert task.json()["response"] == "Added task #1 'read it'."


async def test_another_persons_attachment_is_refused_and_nothing_is_stored(server, db):
    bobs = await uploaded(server, "bob", "secret.txt", b"bob's secret")
    mine = await uploaded(server, "alice", "mine.txt", b"mine")
    first = await server.chat("alice", "hello")
    conversation_id = first.json()["conversation_id"]
    before = await snapshot(db)
    for ids, conversation in (([bobs], None), ([mine, bobs], conversation_id), ([10**12], None)):
        response = await send(server, "alice", "use it", ids, conversation)
        assert response.status_code == 404, response.text
        assert error_code(response) == "attachment_not_found"
        assert "bob" not in response.text
    assert await snapshot(db) == before
    as_agent = await server.client.post(
        "/api/bob/chat",
        json={"message": "hi", "attachments": [bobs]},
        headers=server.headers("bob", agent="helper"),
    )
    assert as_agent.status_code == 403
    assert await snapshot(db) == before


async def test_an_attachment_goes_with_one_message_only(server, db):
    attachment_id = await uploaded(server, "alice", "a.txt", b"hello")
    sent = await send(server, "alice", "first", [attachment_id])
    assert sent.status_code == 200
    before = await snapshot(db)
    again_here = await send(
        server, "alice", "again", [attachment_id], sent.json()["conversation_id"]
    )
    again_new = await send(server, "alice", "again", [attachment_id])
    for response in (again_here, again_new):
        assert response.status_code == 409 and error_code(response) == "attachment_already_sent"
    assert await snapshot(db) == before


async def test_the_same_attachment_sent_twice_at_once_goes_with_exactly_one(server, db):
    attachment_id = await uploaded(server, "alice", "a.txt", b"hello")
    opened = [(await server.chat("alice", f"chat {i}")).json()["conversation_id"] for i in (1, 2)]
    responses = await asyncio.gather(
        *(send(server, "alice", "with the file", [attachment_id], c) for c in opened),
        send(server, "alice", "with the file", [attachment_id]),
    )
    assert sorted(r.status_code for r in responses) == [200, 409, 409]
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT m.conversation_id FROM messages m WHERE m.content = 'with the file'"
        )
        bound = await conn.fetchrow("SELECT conversation_id, message_id FROM attachments")
    [winner] = [r for r in responses if r.status_code == 200]
    assert [r["conversation_id"] for r in rows] == [winner.json()["conversation_id"]]
    assert bound["conversation_id"] == winner.json()["conversation_id"]


async def test_attachments_go_with_chat_messages_only(server, db):
    attachment_id = await uploaded(server, "alice", "a.txt", b"hello")
    inbox = await server.client.get("/api/alice/inbox", headers=server.headers("alice"))
    before = await snapshot(db)
    response = await send(server, "alice", "hi", [attachment_id], inbox.json()["id"])
    assert response.status_code in (409, 422), response.text
    retry = await server.client.post(
        "/api/alice/chat",
        json={"conversation_id": inbox.json()["id"], "retry": True, "attachments": [attachment_id]},
        headers=server.headers("alice"),
    )
    assert retry.status_code == 422
    too_many = await send(server, "alice", "hi", list(range(1, 12)))
    assert too_many.status_code == 422
    assert await snapshot(db) == before
