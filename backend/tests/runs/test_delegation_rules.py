"""Who may do what in a delegation: each refusal a clear JSON error that stores nothing."""

from __future__ import annotations

from typing import Any

from parley.db import Database
from tests.conftest import Server, snapshot, token_for
from tests.runs.helpers import Actor, claimed, delegate, error_code
from tests.tools.results import data, text
from tests.tools.test_mcp_http import mcp_client


async def _thread(server: Server) -> tuple[Actor, Actor, Actor, dict[str, Any], int]:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    run = await architect.start_run()
    return architect, coder, Actor(server, "alice"), run, await delegate(architect, run, "Port")


async def test_a_parent_neither_reports_on_nor_finishes_its_childs_run(
    server: Server, db: Database
) -> None:
    architect, coder, person, _run, thread = await _thread(server)
    child = (await claimed(coder, thread))["child_run_id"]
    before = await snapshot(db)
    for sub, body in (
        ("/status", {"text": "50% (says the parent)", "progress": 50}),
        ("/finish", {"status": "completed", "summary": "done, says the parent"}),
        ("/finish", {"status": "cancelled"}),
    ):
        refused = await architect.call("POST", f"/runs/{child}{sub}", json=body)
        assert refused.status_code == 403, refused.text
        assert error_code(refused) == "not_your_run"
    async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
        result = await client.call_tool(
            "report_status", {"thread_id": thread, "text": "50%", "progress": 50}
        )
        assert result.is_error and "coder" in text(result)
        result = await client.call_tool("finish_run", {"run_id": child, "status": "completed"})
        assert result.is_error
    assert await snapshot(db) == before
    # The child itself, and the person, still may.
    assert (await coder.ok("POST", f"/runs/{child}/status", json={"text": "half"}))["latest_status"]
    cancelled = await person.ok("POST", f"/runs/{child}/finish", json={"status": "cancelled"})
    assert cancelled["status"] == "cancelled"


async def test_only_the_child_asks_and_only_its_counterpart_answers(
    server: Server, db: Database
) -> None:
    architect, coder, _person, _run, thread = await _thread(server)
    child = (await claimed(coder, thread))["child_run_id"]
    path = f"/conversations/{thread}/messages"
    before = await snapshot(db)
    # The parent asking would put the child's run in waiting_input, and answer itself.
    asked = await architect.call("POST", path, json={"text": "Ready?", "kind": "question"})
    assert asked.status_code == 403 and error_code(asked) == "not_your_run", asked.text
    assert await snapshot(db) == before
    assert (await coder.ok("GET", f"/runs/{child}"))["status"] == "running"
    # The child's question: the child cannot answer it, nor can another agent.
    question = await coder.ask(path, "Tabs or spaces?")
    before = await snapshot(db)
    for who, expected in ((coder, 403), (Actor(server, "alice", "intruder"), 403)):
        refused = await who.call(
            "POST", path, json={"text": "Tabs", "kind": "answer", "reply_to": question}
        )
        assert refused.status_code == expected, refused.text
        assert error_code(refused) in ("not_your_question", "not_your_run")
    assert await snapshot(db) == before
    answer = await architect.post(path, "Spaces", kind="answer", reply_to=question)
    assert answer["answered"] == question and answer["kind"] == "answer"
    # Answered once: a second answer is refused and stores nothing.
    before = await snapshot(db)
    again = await architect.call(
        "POST", path, json={"text": "Tabs!", "kind": "answer", "reply_to": question}
    )
    assert again.status_code == 409 and error_code(again) == "already_answered", again.text
    assert await snapshot(db) == before


async def test_an_agent_never_posts_an_answer_that_answers_nothing(
    server: Server, db: Database
) -> None:
    planner, helper = Actor(server, "alice", "planner"), Actor(server, "alice", "helper")
    inbox = (await planner.ok("GET", "/inbox"))["id"]
    question = await planner.ask(f"/conversations/{inbox}/messages", "Which task first?")
    run = await planner.start_run()
    own = await planner.ask(f"/runs/{run['id']}/messages", "Deploy now?")
    before = await snapshot(db)
    for who, path, reply_to in (
        (helper, f"/conversations/{inbox}/messages", question),
        (planner, f"/conversations/{inbox}/messages", question),
        (planner, f"/runs/{run['id']}/messages", own),
        (planner, f"/runs/{run['id']}/messages", None),
    ):
        refused = await who.call(
            "POST", path, json={"text": "#2", "kind": "answer", "reply_to": reply_to}
        )
        assert refused.status_code == 403, refused.text
        assert error_code(refused) == "not_your_question"
    assert await snapshot(db) == before
    state = await planner.ok("GET", f"/questions/{question}")
    assert state["status"] == "open" and state["answer"] is None


async def test_a_child_acts_only_in_a_thread_it_claimed(server: Server, db: Database) -> None:
    _architect, coder, _person, _run, thread = await _thread(server)
    made = await coder.ok("GET", f"/delegations/{thread}")
    before = await snapshot(db)
    for method, path, body in (
        ("POST", f"/delegations/{thread}/complete", {"text": "done (never claimed)"}),
        ("POST", f"/delegations/{thread}/fail", {"text": "x"}),
        ("POST", f"/delegations/{thread}/escalate", {"text": "x"}),
        ("POST", f"/delegations/{thread}/ack", None),
        ("POST", f"/conversations/{thread}/messages", {"text": "hi"}),
        ("POST", f"/conversations/{thread}/messages", {"text": "?", "kind": "question"}),
        ("POST", f"/runs/{made['child_run_id']}/status", {"text": "50%", "progress": 50}),
        ("POST", f"/runs/{made['child_run_id']}/finish", {"status": "completed"}),
        ("POST", f"/runs/{made['child_run_id']}/delegations", {"agent": "tester", "task": "x"}),
    ):
        refused = await coder.call(method, path, json=body)
        assert refused.status_code == 409, (path, refused.text)
        assert error_code(refused) == "not_claimed"
    assert await snapshot(db) == before
    await claimed(coder, thread)
    done = await coder.ok("POST", f"/delegations/{thread}/complete", json={"text": "done"})
    assert done["status"] == "completed"


BAD_NAMES = ["two words", "line\nbreak", "evil\u202etxt.exe", "../../etc", "x" * 200, "", "..", "é"]


async def test_a_delegation_names_only_an_agent_a_token_can_carry(
    server: Server, db: Database
) -> None:
    architect = Actor(server, "alice", "architect")
    run = await architect.start_run()
    before = await snapshot(db)
    for name in BAD_NAMES:
        refused = await architect.call(
            "POST", f"/runs/{run['id']}/delegations", json={"agent": name, "task": "x"}
        )
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["error"]["message"]
    async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
        for name in BAD_NAMES:
            result = await client.call_tool(
                "delegate_task", {"run_id": run["id"], "agent": name, "task": "x"}
            )
            assert result.is_error and "agent must be" in text(result), name
    assert await snapshot(db) == before
    await delegate(architect, run, "fine")  # a token's name is taken


async def test_a_refused_answer_child_stores_nothing(server: Server, db: Database) -> None:
    _architect, coder, person, _run, thread = await _thread(server)
    await claimed(coder, thread)
    path = f"/conversations/{thread}/messages"
    question = await coder.ask(path, "Which licence?")
    await person.post(path, "MIT", reply_to=question)  # the person answered first
    status_message = await coder.post(path, "reading the code")
    async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
        before = await snapshot(db)
        for question_id in (question, status_message["id"], 2**40):
            result = await client.call_tool(
                "answer_child", {"thread_id": thread, "question_id": question_id, "text": "GPL"}
            )
            assert result.is_error, question_id
        assert await snapshot(db) == before
        # An open question still takes the parent's answer, once.
        second = await coder.ask(path, "And the year?")
        answered = data(
            await client.call_tool(
                "answer_child", {"thread_id": thread, "question_id": second, "text": "2026"}
            )
        )
        assert answered["kind"] == "answer" and answered["reply_to"] == second
    got = await coder.ok("GET", f"/questions/{second}")
    assert got["status"] == "answered" and got["answer"]["content"] == "2026"
