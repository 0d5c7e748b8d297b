"""Edit and regenerate fork a conversation: the original stays exactly as it was."""

from __future__ import annotations

from tests.chat.test_turn import _messages


async def _fork(server, user: str, conversation_id: int, message_id: int, **headers):
    return await server.client.post(
        f"/api/{user}/conversations/{conversation_id}/fork",
        json={"message_id": message_id},
        headers=headers or server.headers(user),
    )


async def test_a_fork_copies_what_came_before_and_leaves_the_original_alone(server, db):
    first = (await server.chat("alice", "add a task to buy milk")).json()
    conversation_id = first["conversation_id"]
    await server.chat("alice", "show my pending tasks", conversation_id)
    before = await _messages(db, conversation_id)
    second_question = before[2]

    forked = await _fork(server, "alice", conversation_id, second_question.id)
    assert forked.status_code == 201, forked.text
    fork = forked.json()
    assert fork["mode"] == "chat" and fork["title"].endswith("(edited)")
    assert fork["unread"] == 0  # the copies are read already
    copies = await _messages(db, fork["id"])
    assert [(m.role, m.content) for m in copies] == [(m.role, m.content) for m in before[:2]]
    assert [m.meta["copied_from"] for m in copies] == [
        {"conversation_id": conversation_id, "message_id": m.id} for m in before[:2]
    ]
    # The edited text goes to the fork as an ordinary turn; the original is unchanged.
    edited = (await server.chat("alice", "show all my tasks", fork["id"])).json()
    assert edited["conversation_id"] == fork["id"]
    assert await _messages(db, conversation_id) == before


async def test_replies_say_which_model_wrote_them(server, db):
    body = (await server.chat("alice", "hello")).json()
    reply = (await _messages(db, body["conversation_id"]))[-1]
    assert reply.meta == {"model": server.settings.model_name}


async def test_a_fork_is_refused_for_a_reply_another_person_or_an_agent(server, db):
    body = (await server.chat("alice", "hello")).json()
    conversation_id = body["conversation_id"]
    question, reply = await _messages(db, conversation_id)
    not_mine = await _fork(server, "alice", conversation_id, reply.id)
    assert not_mine.status_code == 422
    assert not_mine.json()["error"]["code"] == "validation_error"
    other = await _fork(server, "bob", conversation_id, question.id)
    assert other.status_code == 404
    agent = await _fork(
        server, "alice", conversation_id, question.id, **server.headers("alice", agent="helper")
    )
    assert agent.status_code == 403
    wrong_path = await server.client.post(
        f"/api/bob/conversations/{conversation_id}/fork",
        json={"message_id": question.id},
        headers=server.headers("alice"),
    )
    assert wrong_path.status_code == 403
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM conversations") == 1
