"""What the inbox's message box promises: a person's plain message there answers the oldest
open question the inbox shows (its own, or one waiting on the person in a run), the way
`POST /questions/{id}/answer` does; with nothing open it is an ordinary message."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.audit.test_trail import cookie_headers, trail
from tests.conftest import Server, snapshot
from tests.permission_requests.helpers import write_call
from tests.runs.helpers import Actor, error_code


async def web_post(server: Server, web: dict[str, str], inbox: int, text: str) -> Any:
    """The inbox's message box: `POST .../messages` with the session cookie, no reply_to."""
    response = await server.client.post(
        f"/api/alice/conversations/{inbox}/messages", json={"text": text}, headers=web
    )
    return response


async def test_a_plain_message_answers_the_oldest_open_question_shown_in_the_inbox(
    server: Server,
) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    web = await cookie_headers(server, "alice")
    run = await agent.start_run("Release")
    # Asked first, in the agent's run (the inbox lists it under "Waiting on you"), then one
    # in the inbox itself.
    in_run = await agent.ask(f"/conversations/{run['conversation_id']}/messages", "Which day?")
    in_inbox = await agent.ask("/inbox/messages", "Which branch?")
    inbox = (await person.ok("GET", "/inbox"))["id"]
    waits = {
        q: asyncio.create_task(agent.ok("GET", f"/questions/{q}", params={"wait": 30}))
        for q in (in_run, in_inbox)
    }
    for q in waits:
        await server.waiting_for(q)

    first = await web_post(server, web, inbox, "Thursday")
    assert first.status_code == 201, first.text
    posted = first.json()
    assert (posted["answered"], posted["kind"], posted["reply_to"]) == (in_run, "answer", in_run)
    got = await asyncio.wait_for(waits[in_run], 10)
    assert got["status"] == "answered" and got["answer"]["content"] == "Thursday"
    assert got["answer"]["role"] == "user"
    assert (await agent.ok("GET", f"/runs/{run['id']}"))["status"] == "running"
    assert not waits[in_inbox].done()  # one message, one question

    second = (await web_post(server, web, inbox, "main")).json()
    assert second["answered"] == in_inbox and second["conversation_id"] == inbox
    assert (await asyncio.wait_for(waits[in_inbox], 10))["answer"]["content"] == "main"

    # Nothing open any more: an ordinary message, answering nobody.
    later = await web_post(server, web, inbox, "thanks")
    assert later.status_code == 201
    assert (later.json()["kind"], later.json()["answered"]) == ("message", None)
    assert await person.ok("GET", "/questions") == []

    # The audit trail says the web answered both, from the person's web session.
    events = {e["question_id"]: e for e in await trail(person)}
    for question, text in ((in_run, "Thursday"), (in_inbox, "main")):
        event = events[question]
        assert (event["via"], event["decided_by"], event["answer"]) == ("web", "person", text)
        assert event["session_id"] is not None


async def test_a_plain_message_decides_a_permission_question_by_its_words_or_is_refused(
    server: Server, db: Database
) -> None:
    """The words are read as the answer route reads them (`parse_decision`): a plain "no,
    ..." denies with that reason; words that decide nothing are refused and store nothing."""
    agent, person = Actor(server, "alice", "laptop-cc"), Actor(server, "alice")
    web = await cookie_headers(server, "alice")
    asked = await agent.ok("POST", "/permission-requests", json=write_call("/w/notes.txt"))
    assert asked["status"] == "pending"
    inbox = (await person.ok("GET", "/inbox"))["id"]
    waiting = asyncio.create_task(
        agent.ok("GET", f"/permission-requests/{asked['id']}", params={"wait": 30})
    )
    await server.waiting_for(asked["id"])

    before = await snapshot(db)
    refused = await web_post(server, web, inbox, "Thursday")
    assert refused.status_code == 422 and error_code(refused) == "validation_error", refused.text
    assert "permission question" in refused.json()["error"]["message"]
    assert await snapshot(db) == before and not waiting.done()

    denied = (await web_post(server, web, inbox, "no, write it under /tmp")).json()
    assert denied["answered"] == asked["id"]
    got = await asyncio.wait_for(waiting, 10)
    assert (got["status"], got["decision"], got["decided_by"]) == ("decided", "deny", "person")
    assert got["reason"] == "The person denied this tool call: no, write it under /tmp"
    [event] = [e for e in await trail(person) if e["question_id"] == asked["id"]]
    assert (event["via"], event["decision"]) == ("web", "deny")

    # A plain yes allows the next one.
    again = await agent.ok("POST", "/permission-requests", json=write_call("/w/b.txt"))
    assert (await web_post(server, web, inbox, "yes")).json()["answered"] == again["id"]
    allowed = await agent.ok("GET", f"/permission-requests/{again['id']}")
    assert (allowed["decision"], allowed["decided_by"]) == ("allow", "person")


async def test_plain_messages_at_once_answer_at_most_one_question_each(server: Server) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    web = await cookie_headers(server, "alice")
    asked = [await agent.ask("/inbox/messages", f"Question {n}?") for n in range(3)]
    inbox = (await person.ok("GET", "/inbox"))["id"]
    waits = [
        asyncio.create_task(agent.ok("GET", f"/questions/{q}", params={"wait": 30})) for q in asked
    ]
    for q in asked:
        await server.waiting_for(q)

    texts = [f"answer {n}" for n in range(6)]
    sent = await asyncio.gather(*(web_post(server, web, inbox, t) for t in texts))
    assert all(r.status_code == 201 for r in sent), [r.text for r in sent]
    answered = [r.json()["answered"] for r in sent if r.json()["answered"] is not None]
    assert sorted(answered) == asked  # each question once, by one message
    ordinary = [r.json() for r in sent if r.json()["answered"] is None]
    assert len(ordinary) == 3 and all(m["kind"] == "message" for m in ordinary)

    by_question = {r.json()["answered"]: r.json()["content"] for r in sent}
    for question, wait in zip(asked, waits, strict=True):
        got = await asyncio.wait_for(wait, 10)
        assert got["status"] == "answered" and got["answer"]["content"] == by_question[question]
