"""One answer for every question: the answer route, its refusals, and exactly-once answers
under a race on two instances."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.conftest import Server, snapshot
from tests.runs.helpers import Actor, error_code


def answer_path(question: int) -> str:
    return f"/questions/{question}/answer"


async def test_the_answer_route_answers_an_agents_question_and_wakes_it(server: Server) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    question = await agent.ask("/inbox/messages", "Ship it?")
    waiting = asyncio.create_task(agent.ok("GET", f"/questions/{question}", params={"wait": 30}))
    answered = await person.ok("POST", answer_path(question), 201, json={"text": "Ship it"})
    assert answered["kind"] == "answer" and answered["reply_to"] == question
    assert answered["role"] == "user" and answered["answered"] == question
    got = await asyncio.wait_for(waiting, 10)
    assert got["status"] == "answered" and got["answer"]["content"] == "Ship it"
    again = await person.call("POST", answer_path(question), json={"text": "No, wait"})
    assert again.status_code == 409 and error_code(again) == "already_answered"


async def test_only_the_person_answers_and_bad_answers_change_nothing(
    server: Server, db: Database
) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    other_agent, mallory = Actor(server, "alice", "coder"), Actor(server, "mallory")
    question = await agent.ask("/inbox/messages", "Which day?")
    before = await snapshot(db)
    for who, body, status, code in (
        (agent, {"text": "Tuesday"}, 403, "agent_not_allowed"),  # the asker itself
        (other_agent, {"text": "Tuesday"}, 403, "agent_not_allowed"),
        (mallory, {"text": "Tuesday"}, 404, "not_found"),
        (person, {}, 422, None),
        (person, {"text": "Tuesday", "decision": "allow"}, 422, None),
        (person, {"decision": "allow"}, 422, None),  # a decision is for permission requests
        (person, {"decision": "maybe"}, 422, None),
        (person, {"text": "   "}, 422, None),
        (person, {"text": "x" * 20_000}, None, None),
    ):
        refused = await who.call("POST", answer_path(question), json=body)
        assert refused.status_code in ((status,) if status else (413, 422)), refused.text
        if code:
            assert error_code(refused) == code
    unknown = await person.call("POST", answer_path(2**62), json={"text": "x"})
    assert unknown.status_code == 404
    other_path = await person.server.client.post(
        f"/api/mallory{answer_path(question)}",
        json={"text": "x"},
        headers=person.headers,
    )
    assert other_path.status_code == 403
    assert await snapshot(db) == before
    state = await agent.ok("GET", f"/questions/{question}")
    assert state["status"] == "open"


async def test_ten_answers_at_once_on_two_instances_store_one(
    make_server: Any, db: Database
) -> None:
    async with make_server() as one, make_server() as two:
        agent = Actor(one, "alice", "planner")
        question = await agent.ask("/inbox/messages", "Deploy now?")
        people = [Actor(one, "alice"), Actor(two, "alice")]
        responses = await asyncio.gather(
            *(
                people[i % 2].call("POST", answer_path(question), json={"text": f"yes {i}"})
                for i in range(10)
            )
        )
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [201] + [409] * 9, [r.text for r in responses]
        assert {error_code(r) for r in responses if r.status_code == 409} == {"already_answered"}
        winner = next(r.json() for r in responses if r.status_code == 201)
        async with db.connection() as conn:
            answers = await conn.fetch(
                "SELECT id FROM messages WHERE kind = 'answer' AND reply_to = $1", question
            )
            row = await conn.fetchrow(
                "SELECT status, answer_id FROM questions WHERE message_id = $1", question
            )
        assert [a["id"] for a in answers] == [winner["id"]]
        assert row["status"] == "answered" and row["answer_id"] == winner["id"]
        got = await Actor(two, "alice", "planner").ok("GET", f"/questions/{question}")
        assert got["answer"]["content"] == winner["content"]


async def test_a_finished_runs_question_closes_and_takes_no_answer(server: Server) -> None:
    agent, person = Actor(server, "alice", "planner"), Actor(server, "alice")
    run = await agent.start_run("deploy")
    question = await agent.ask(f"/conversations/{run['conversation_id']}/messages", "Go?")
    waiting = asyncio.create_task(agent.ok("GET", f"/questions/{question}", params={"wait": 30}))
    await agent.ok("POST", f"/runs/{run['id']}/finish", json={"status": "cancelled"})
    got = await asyncio.wait_for(waiting, 10)  # woken: nobody will answer it now
    assert got["status"] in ("closed", "timed_out") and got["answer"] is None
    late = await person.call("POST", answer_path(question), json={"text": "go"})
    assert late.status_code == 409 and error_code(late) == "question_closed"


async def test_the_open_questions_list_what_waits_on_the_person_wherever_asked(
    server: Server,
) -> None:
    planner, coder = Actor(server, "alice", "planner"), Actor(server, "alice", "coder")
    person = Actor(server, "alice")
    in_inbox = await planner.ask("/inbox/messages", "Which day?")
    run = await coder.start_run("deploy")
    in_run = await coder.ask(f"/conversations/{run['conversation_id']}/messages", "Go?")
    answered = await planner.ask("/inbox/messages", "Coffee?")
    await person.ok("POST", answer_path(answered), 201, json={"text": "yes"})
    listed = await person.ok("GET", "/questions")
    assert [q["question"]["id"] for q in listed] == [in_inbox, in_run]
    assert {q["status"] for q in listed} == {"open"}
    assert [q["question"]["id"] for q in await coder.ok("GET", "/questions")] == [in_run]
    assert await Actor(server, "mallory").ok("GET", "/questions") == []
