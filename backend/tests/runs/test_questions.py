"""One question system: the answer route, its refusals, and exactly-once answers under a race
on two instances; the state machine and how replies read as decisions (unit)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from parley.conversations import StoredMessage
from parley.db import Database
from parley.runs.questions import (
    DECISION_TEXT,
    Decision,
    QuestionState,
    QuestionStatus,
    decision_of,
    is_permission,
    move,
    parse_decision,
    refusal_for,
)
from tests.conftest import Server, snapshot
from tests.runs.helpers import Actor, error_code


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("Allow", Decision.allow),
        ("yes please", Decision.allow),
        ("ok", Decision.allow),
        ("allow always", Decision.allow_session),
        ("Yes, allow for this session.", Decision.allow_session),
        ("deny", Decision.deny),
        ("No.", Decision.deny),
        ("don't", Decision.deny),
        ("stop", Decision.deny),
        ("what does it do?", None),
        ("yesterday's build", None),
        ("  YES!!! ", Decision.allow),
        ("y", Decision.allow),
        ("n", Decision.deny),
        ("Go ahead", Decision.allow),
        ("okay, do it every time", Decision.allow_session),
        ("approve for the session", Decision.allow_session),
        ("no, not always", Decision.deny),  # a refusal wins over "always"
        ("do not", Decision.deny),
        ("cancel that", Decision.deny),
        ("allowed?", None),  # whole words only
        ("nope", None),
        ("notes first", None),
        ("", None),
        ("I said yes", None),  # a decision opens the reply
    ],
)
def test_replies_read_as_decisions(text: str, decision: Decision | None) -> None:
    assert parse_decision(text) == decision


@pytest.mark.unit
def test_only_an_open_question_moves_and_only_once() -> None:
    for end in (QuestionStatus.answered, QuestionStatus.timed_out, QuestionStatus.closed):
        assert move(QuestionStatus.open, end) is end
        for to in QuestionStatus:
            with pytest.raises(ValueError):
                move(end, to)
    with pytest.raises(ValueError):
        move(QuestionStatus.open, QuestionStatus.open)
    assert refusal_for(QuestionStatus.answered, 7).code == "already_answered"
    for closed in (QuestionStatus.timed_out, QuestionStatus.closed):
        refused = refusal_for(closed, 7)
        assert refused.status == 409 and refused.code == "question_closed"


def state_with(status: QuestionStatus, meta: dict[str, Any] | None) -> QuestionState:
    question = StoredMessage(
        id=5,
        conversation_id=1,
        user_id="ann",
        role="assistant",
        author="claude",
        kind="question",
        content="Claude wants to run `ls` — allow?",
        tool_calls=None,
        error=False,
        reply_to=None,
        meta=meta,
        created_at=datetime.now(UTC),
    )
    return QuestionState(
        question=question,
        status=status.value,
        answer=None,
        timeout_at=datetime.now(UTC),
        seconds_left=0.0,
        asked_by="claude-code",
        run_id=3,
    )


PERMISSION = {"type": "permission", "permission": {"tool": "Bash", "input": {}}}


@pytest.mark.unit
@pytest.mark.parametrize(
    "end", [QuestionStatus.answered, QuestionStatus.timed_out, QuestionStatus.closed]
)
def test_an_open_question_ends_once_and_its_end_is_final(end: QuestionStatus) -> None:
    assert move(QuestionStatus.open, end) is end
    for to in QuestionStatus:
        with pytest.raises(ValueError, match=f"from {end} to {to}"):
            move(end, to)


@pytest.mark.unit
@pytest.mark.parametrize("decision", list(Decision))
def test_an_answered_permission_carries_its_stored_decision(decision: Decision) -> None:
    meta = PERMISSION | {"answer": decision.value}
    assert decision_of(state_with(QuestionStatus.answered, meta)) is decision


@pytest.mark.unit
def test_no_decision_unless_answered_with_one() -> None:
    with_answer = PERMISSION | {"answer": "allow"}
    for status in (QuestionStatus.open, QuestionStatus.timed_out, QuestionStatus.closed):
        assert decision_of(state_with(status, with_answer)) is None
    assert decision_of(state_with(QuestionStatus.answered, PERMISSION)) is None  # text only
    assert decision_of(state_with(QuestionStatus.answered, None)) is None
    forged = PERMISSION | {"answer": "always"}  # not a Decision: never read as one
    assert decision_of(state_with(QuestionStatus.answered, forged)) is None


@pytest.mark.unit
def test_a_permission_question_is_one_with_a_tool_call() -> None:
    assert is_permission(PERMISSION)
    assert not is_permission({"type": "permission"})
    assert not is_permission({"permission": {}})
    assert not is_permission(None)


@pytest.mark.unit
def test_each_closed_state_refuses_an_answer_in_words_that_say_why() -> None:
    answered = refusal_for(QuestionStatus.answered, 9)
    assert (answered.status, answered.code) == (409, "already_answered")
    assert answered.extra == {"question_id": 9}
    timed_out = refusal_for(QuestionStatus.timed_out, 9)
    assert "timed out" in timed_out.message
    assert timed_out.extra == {"question_id": 9, "question_status": "timed_out"}
    closed = refusal_for(QuestionStatus.closed, 9)
    assert closed.extra["question_status"] == "closed" and "takes no answer" in closed.message


@pytest.mark.unit
def test_every_decision_has_the_words_the_ui_shows_and_reads_back() -> None:
    for decision, words in DECISION_TEXT.items():
        assert parse_decision(words) is decision


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
