"""Branches in place: an edit or a regenerated reply is a sibling in the same conversation,
one branch is shown (to the UI, to agents, and to the model), and switching is kept."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.chat.test_with_openai_server import with_fake
from tests.conftest import Server
from tests.fakes.openai_server import hang, say


async def _turn(server: Server, user: str = "alice", **body: Any) -> Any:
    return await server.client.post(f"/api/{user}/chat", json=body, headers=server.headers(user))


async def _shown(server: Server, conversation_id: int, user: str = "alice") -> list[Any]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/messages", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    return [(m["role"], m["content"]) for m in response.json()]


async def _branches(server: Server, conversation_id: int, user: str = "alice") -> Any:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/branches", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    return response.json()["branches"]


async def _switch(server: Server, conversation_id: int, message_id: Any, user: str = "alice"):
    return await server.client.post(
        f"/api/{user}/conversations/{conversation_id}/branch",
        json={"message_id": message_id},
        headers=server.headers(user),
    )


async def _ids(server: Server, conversation_id: int) -> list[int]:
    response = await server.client.get(
        f"/api/alice/conversations/{conversation_id}/messages", headers=server.headers("alice")
    )
    return [m["id"] for m in response.json()]


def _said(request: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in request["messages"] if m["role"] != "system"]


async def test_an_edit_branches_in_place_and_the_model_reads_only_the_shown_branch(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("first answer"))
        first = await server.chat("alice", "first question")
        conversation_id = first.json()["conversation_id"]
        fake.enqueue(say("apples answer"))
        await server.chat("alice", "ask about apples", conversation_id)
        q1, a1, apples, apples_reply = await _ids(server, conversation_id)

        fake.enqueue(say("pears answer"))
        edited = await _turn(
            server, conversation_id=conversation_id, message="ask about pears", replaces=apples
        )
        assert edited.status_code == 200, edited.text
        assert edited.json() == {
            "conversation_id": conversation_id,
            "response": "pears answer",
            "tool_calls": [],
        }
        # The model read the shown branch: the first exchange and the edit, not the apples.
        assert _said(fake.requests[-1]) == ["first question", "first answer", "ask about pears"]
        assert await _shown(server, conversation_id) == [
            ("user", "first question"),
            ("assistant", "first answer"),
            ("user", "ask about pears"),
            ("assistant", "pears answer"),
        ]
        pears = (await _ids(server, conversation_id))[2]
        assert await _branches(server, conversation_id) == [
            {"message_id": pears, "siblings": [apples, pears]}
        ]

        # Switch back: the old question and its reply are shown again, and stay so.
        switched = await _switch(server, conversation_id, apples)
        assert switched.status_code == 200, switched.text
        assert switched.json()["branches"] == [{"message_id": apples, "siblings": [apples, pears]}]
        assert await _ids(server, conversation_id) == [q1, a1, apples, apples_reply]
        # The next turn continues the shown branch, and the model never reads the pears.
        fake.enqueue(say("more apples"))
        more = await server.chat("alice", "and more?", conversation_id)
        assert more.status_code == 200, more.text
        assert _said(fake.requests[-1]) == [
            "first question",
            "first answer",
            "ask about apples",
            "apples answer",
            "and more?",
        ]
        # One conversation, no copies.
        listed = await server.client.get(
            "/api/alice/conversations", headers=server.headers("alice")
        )
        assert [c["id"] for c in listed.json()] == [conversation_id]
        assert "(edited)" not in listed.json()[0]["title"]


async def test_regenerate_adds_a_sibling_reply_and_the_first_one_is_a_switch_away(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("reply one"))
        first = await server.chat("alice", "tell me a joke")
        conversation_id = first.json()["conversation_id"]
        _question, reply_one = await _ids(server, conversation_id)
        fake.enqueue(say("reply two"))
        again = await _turn(server, conversation_id=conversation_id, replaces=reply_one)
        assert again.status_code == 200, again.text
        # The question is asked once, as it was; the first reply is not shown to the model.
        assert _said(fake.requests[-1]) == ["tell me a joke"]
        assert await _shown(server, conversation_id) == [
            ("user", "tell me a joke"),
            ("assistant", "reply two"),
        ]
        reply_two = (await _ids(server, conversation_id))[1]
        assert await _branches(server, conversation_id) == [
            {"message_id": reply_two, "siblings": [reply_one, reply_two]}
        ]
        assert (await _switch(server, conversation_id, reply_one)).status_code == 200
        assert await _shown(server, conversation_id) == [
            ("user", "tell me a joke"),
            ("assistant", "reply one"),
        ]


async def test_an_edit_of_the_first_message_is_a_second_root(server):
    first = await server.chat("alice", "list my tasks")
    conversation_id = first.json()["conversation_id"]
    question, _reply = await _ids(server, conversation_id)
    edited = await _turn(
        server, conversation_id=conversation_id, message="show my pending tasks", replaces=question
    )
    assert edited.status_code == 200, edited.text
    shown = await _ids(server, conversation_id)
    assert (await _branches(server, conversation_id)) == [
        {"message_id": shown[0], "siblings": [question, shown[0]]}
    ]
    assert (await _switch(server, conversation_id, question)).status_code == 200
    assert (await _ids(server, conversation_id))[0] == question


async def _state(db, conversation_id: int) -> list[Any]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, parent_id, shown, content FROM messages ORDER BY user_id, id"
        )
        version = await conn.fetchval(
            "SELECT version FROM conversations WHERE id = $1", conversation_id
        )
    return [tuple(r) for r in rows] + [version]


async def test_bad_edits_regenerations_and_switches_are_refused_and_change_nothing(server, db):
    mine = (await server.chat("alice", "hello")).json()["conversation_id"]
    other = (await server.chat("alice", "list my tasks")).json()["conversation_id"]
    bobs = (await server.chat("bob", "hello")).json()["conversation_id"]
    question, reply = await _ids(server, mine)
    other_question = (await _ids(server, other))[0]
    async with db.connection() as conn:
        bob_question = await conn.fetchval(
            "SELECT id FROM messages WHERE user_id = 'bob' AND role = 'user'"
        )
    before = await _state(db, mine)

    refused = [
        # A message of another conversation, another person's, or none at all.
        (422, await _turn(server, conversation_id=mine, message="x", replaces=other_question)),
        (422, await _turn(server, conversation_id=mine, message="x", replaces=bob_question)),
        (422, await _turn(server, conversation_id=mine, message="x", replaces=10**12)),
        (422, await _turn(server, conversation_id=mine, replaces=question)),  # not a reply
        (422, await _turn(server, conversation_id=mine, message="x", replaces=reply)),
        (422, await _turn(server, conversation_id=mine, message="   ", replaces=question)),
        (422, await _turn(server, conversation_id=mine, retry=True, replaces=reply)),
        (422, await _turn(server, message="x", replaces=question)),  # which conversation?
        (422, await _turn(server, conversation_id=mine, message="x", replaces=-1)),
        (422, await _turn(server, conversation_id=mine, message="x", replaces="1")),
        (404, await _turn(server, "bob", conversation_id=mine, message="x", replaces=question)),
        (404, await _turn(server, "bob", conversation_id=mine, replaces=reply)),
        (422, await _switch(server, mine, other_question)),
        (422, await _switch(server, mine, bob_question)),
        (422, await _switch(server, mine, 10**12)),
        (422, await _switch(server, mine, 0)),
        (422, await _switch(server, mine, str(question))),
        (404, await _switch(server, mine, question, user="bob")),
        (404, await _switch(server, bobs, bob_question)),
    ]
    for status, response in refused:
        assert response.status_code == status, response.text
        assert set(response.json()) == {"error"}, response.text
    # An agent never edits or switches as its person; a path naming someone else is refused.
    agent = await server.client.post(
        f"/api/alice/conversations/{mine}/branch",
        json={"message_id": question},
        headers=server.headers("alice", agent="helper"),
    )
    assert agent.status_code == 403
    crossed = await server.client.post(
        f"/api/bob/conversations/{bobs}/branch",
        json={"message_id": bob_question},
        headers=server.headers("alice"),
    )
    assert crossed.status_code == 403
    bob_reads = await server.client.get(
        f"/api/bob/conversations/{mine}/branches", headers=server.headers("bob")
    )
    assert bob_reads.status_code == 404
    assert await _state(db, mine) == before
    # A shown message is a switch to where it already is: nothing moves.
    same = await _switch(server, mine, question)
    assert same.status_code == 200 and same.json()["branches"] == []
    assert await _state(db, mine) == before


async def test_two_tabs_editing_at_once_store_one_edit_and_the_other_gets_a_409(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("answer"))
        conversation_id = (await server.chat("alice", "question")).json()["conversation_id"]
        question, _reply = await _ids(server, conversation_id)
        fake.enqueue(say("edited answer"), say("edited answer"))
        results = await asyncio.gather(
            *(
                _turn(
                    server, conversation_id=conversation_id, message=f"edit {i}", replaces=question
                )
                for i in range(4)
            )
        )
        statuses = sorted(r.status_code for r in results)
        assert statuses.count(200) == 1, [r.text for r in results]
        assert all(s == 409 for s in statuses if s != 200)
        assert {r.json()["error"]["code"] for r in results if r.status_code == 409} <= {
            "turn_in_progress",
            "branch_moved",
        }
        shown = await _shown(server, conversation_id)
        assert len(shown) == 2 and shown[1] == ("assistant", "edited answer")
        [fork] = await _branches(server, conversation_id)
        assert len(fork["siblings"]) == 2  # the question and exactly one edit
        # The original question is off the shown branch now: editing it again is refused.
        late = await _turn(
            server, conversation_id=conversation_id, message="late", replaces=question
        )
        assert late.status_code == 409 and late.json()["error"]["code"] == "branch_moved"


async def test_a_switch_while_a_reply_is_written_is_refused(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("one"))
        conversation_id = (await server.chat("alice", "question")).json()["conversation_id"]
        _question, reply = await _ids(server, conversation_id)
        fake.enqueue(say("two"))
        await _turn(server, conversation_id=conversation_id, replaces=reply)
        fake.enqueue(hang("thinking"))
        turn = asyncio.create_task(server.chat("alice", "a hard one", conversation_id))
        await asyncio.wait_for(fake.hanging.wait(), timeout=10)
        during = await _switch(server, conversation_id, reply)
        await server.client.post(
            f"/api/alice/conversations/{conversation_id}/stop", headers=server.headers("alice")
        )
        await asyncio.wait_for(turn, timeout=10)
        assert during.status_code == 409
        assert during.json()["error"]["code"] == "turn_in_progress"
        assert [c for _r, c in await _shown(server, conversation_id)][:2] == ["question", "two"]


async def test_concurrent_switches_leave_one_shown_branch(server, db):
    conversation_id = (await server.chat("alice", "list my tasks")).json()["conversation_id"]
    _question, reply = await _ids(server, conversation_id)
    for _ in range(2):
        regenerated = await _turn(server, conversation_id=conversation_id, replaces=reply)
        assert regenerated.status_code == 200, regenerated.text
        reply = (await _ids(server, conversation_id))[1]
    [fork] = await _branches(server, conversation_id)
    replies = fork["siblings"]
    assert len(replies) == 3
    results = await asyncio.gather(
        *(_switch(server, conversation_id, replies[i % 3]) for i in range(9))
    )
    assert all(r.status_code == 200 for r in results), [r.text for r in results]
    async with db.connection() as conn:
        shown = await conn.fetchval(
            "SELECT count(*) FROM messages WHERE conversation_id = $1 AND shown", conversation_id
        )
        total = await conn.fetchval(
            "SELECT count(*) FROM messages WHERE conversation_id = $1", conversation_id
        )
    assert (shown, total) == (2, 4)  # one question, one of the three replies; none lost
