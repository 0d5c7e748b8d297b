"""The inbox, read positions and unread counts, and questions answered over REST."""

from __future__ import annotations

import asyncio

from parley.db import Database
from tests.conftest import Server, snapshot
from tests.runs.helpers import Actor, error_code


async def test_an_agent_writes_first_and_the_person_reads_it_later(server: Server) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    posted = await agent.post("/inbox/messages", "Your build is green")
    assert posted["role"] == "agent" and posted["author"] == "planner"

    inbox = await person.ok("GET", "/inbox")  # the same inbox, whoever asks first
    assert inbox["mode"] == "inbox" and inbox["id"] == posted["conversation_id"]
    assert inbox["unread"] == 1 and inbox["preview"] == "Your build is green"
    listed = await person.ok("GET", "/conversations")
    assert [(c["id"], c["unread"]) for c in listed] == [(inbox["id"], 1)]
    messages = await person.ok("GET", f"/conversations/{inbox['id']}/messages")
    assert [m["content"] for m in messages] == ["Your build is green"]

    read = await person.ok(
        "POST", f"/conversations/{inbox['id']}/read", json={"message_id": posted["id"]}
    )
    assert read == {"conversation_id": inbox["id"], "unread": 0}
    # Stored: another device (any fresh read) sees it read too; an older position is ignored.
    await agent.post("/inbox/messages", "And the deploy is done")
    assert (await person.ok("GET", "/inbox"))["unread"] == 1
    await person.ok("POST", f"/conversations/{inbox['id']}/read", json={"message_id": 1})
    assert (await person.ok("GET", "/inbox"))["unread"] == 1
    # An agent cannot mark the person's messages as read.
    refused = await agent.call(
        "POST", f"/conversations/{inbox['id']}/read", json={"message_id": posted["id"]}
    )
    assert refused.status_code == 403


async def test_chat_conversations_are_written_through_chat_only(server: Server) -> None:
    person = Actor(server, "alice")
    chat = await person.ok("POST", "/conversations", 201, json={})
    refused = await person.call("POST", f"/conversations/{chat['id']}/messages", json={"text": "x"})
    assert refused.status_code == 409 and error_code(refused) == "not_writable"


async def test_an_inbox_takes_no_assistant_turn(server: Server, db: Database) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    inbox = (await agent.post("/inbox/messages", "Build is green"))["conversation_id"]
    before = await snapshot(db)
    refused = await person.call("POST", "/chat", json={"conversation_id": inbox, "message": "hi"})
    assert refused.status_code == 409 and error_code(refused) == "wrong_conversation_mode"
    assert refused.json()["error"]["mode"] == "inbox"
    assert await snapshot(db) == before  # no message, no claim, no reply


async def test_a_question_waits_for_a_real_answer(server: Server, db: Database) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    question = await agent.ask("/inbox/messages", "Ship it?")
    state = await agent.ok("GET", f"/questions/{question}")
    assert state["status"] == "open" and state["answer"] is None
    inbox = state["question"]["conversation_id"]

    waiting = asyncio.create_task(agent.ok("GET", f"/questions/{question}", params={"wait": 30}))
    await server.waiting_for(question)
    before = await snapshot(db)
    for empty in ("", "   ", "\n\t"):
        refused = await person.call(
            "POST", f"/conversations/{inbox}/messages", json={"text": empty, "reply_to": question}
        )
        assert refused.status_code == 422
    assert await snapshot(db) == before
    assert not waiting.done()

    answer = await person.post(
        f"/conversations/{inbox}/messages", "Yes, ship it", reply_to=question
    )
    assert answer["kind"] == "answer" and answer["reply_to"] == question
    assert answer["answered"] == question
    # The agent's one wait returns with the real answer: an empty one never answered it.
    got = await asyncio.wait_for(waiting, 5)
    assert got["status"] == "answered" and got["answer"]["content"] == "Yes, ship it"
    assert got["answer"]["role"] == "user"


async def test_two_agents_two_questions_each_gets_its_own_answer(server: Server) -> None:
    planner, coder = Actor(server, "alice", "planner"), Actor(server, "alice", "coder")
    person = Actor(server, "alice")
    first = await planner.ask("/inbox/messages", "Which day?")
    second = await coder.ask("/inbox/messages", "Which library?")
    inbox = (await person.ok("GET", "/inbox"))["id"]
    # An agent sees only its own questions.
    assert (await coder.call("GET", f"/questions/{first}")).status_code == 404

    waits = [
        asyncio.create_task(planner.ok("GET", f"/questions/{first}", params={"wait": 30})),
        asyncio.create_task(coder.ok("GET", f"/questions/{second}", params={"wait": 30})),
    ]
    await server.waiting_for(first)
    await server.waiting_for(second)
    await person.post(f"/conversations/{inbox}/messages", "authlib", reply_to=second)
    coder_got = await asyncio.wait_for(waits[1], 5)
    assert coder_got["answer"]["content"] == "authlib"
    assert not waits[0].done()
    plain = await person.post(f"/conversations/{inbox}/messages", "Tuesday")  # oldest open one
    assert plain["answered"] == first and plain["reply_to"] == first
    planner_got = await asyncio.wait_for(waits[0], 5)
    assert planner_got["answer"]["content"] == "Tuesday"
    # Nothing open any more: a plain message is just a message.
    later = await person.post(f"/conversations/{inbox}/messages", "thanks")
    assert later["kind"] == "message" and later["answered"] is None


async def test_an_unanswered_question_times_out(server: Server) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    question = await agent.ask("/inbox/messages", "Quick one?", timeout_s=1)
    started = asyncio.get_running_loop().time()
    got = await agent.ok("GET", f"/questions/{question}", params={"wait": 20})
    assert got["status"] == "timed_out" and got["answer"] is None
    assert 0.8 < asyncio.get_running_loop().time() - started < 5
    inbox = got["question"]["conversation_id"]
    late = await person.post(f"/conversations/{inbox}/messages", "sorry, yes")
    assert late["answered"] is None


async def test_questions_and_inbox_are_private(server: Server) -> None:
    agent, mallory = Actor(server, "alice", "planner"), Actor(server, "mallory")
    question = await agent.ask("/inbox/messages", "Secret?")
    inbox = (await Actor(server, "alice").ok("GET", "/inbox"))["id"]
    assert (await mallory.call("GET", f"/questions/{question}")).status_code == 404
    for path, body in (
        (f"/conversations/{inbox}/messages", {"text": "mine now", "reply_to": question}),
        (f"/conversations/{inbox}/read", {"message_id": question}),
    ):
        assert (await mallory.call("POST", path, json=body)).status_code == 404
    assert (await mallory.ok("GET", "/inbox"))["id"] != inbox
    # A person's token cannot ask (questions are how agents wait for people).
    refused = await Actor(server, "alice").call(
        "POST", f"/conversations/{inbox}/messages", json={"text": "?", "kind": "question"}
    )
    assert refused.status_code == 422
