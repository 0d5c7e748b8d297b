"""Permission requests over real HTTP and PostgreSQL: Claude Code outside Parley sends a tool
call; the person's rules decide it at once, or the person does through the ordinary answer
route; one call is one question however often it is sent; nobody else sees it."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.conftest import Server
from tests.permission_requests.helpers import questions, write_call
from tests.runs.helpers import Actor, error_code

PATH = "/permission-requests"


async def test_an_allow_rule_decides_at_once_and_asks_nobody(server: Server, db: Database) -> None:
    ann, agent = Actor(server, "ann"), Actor(server, "ann", "laptop-cc")
    rule = await ann.ok(
        "POST", "/approval-rules", 201, json={"decision": "allow", "pattern": "Bash(npm test:*)"}
    )
    call = {"tool_name": "Bash", "tool_input": {"command": "npm test --watch"}, "tool_use_id": "t1"}
    decided = await agent.ok("POST", PATH, json=call)
    assert decided["status"] == "decided" and decided["decision"] == "allow", decided
    assert (decided["id"], decided["rule_id"], decided["decided_by"]) == (None, rule["id"], "rule")
    assert "Bash(npm test:*)" in decided["reason"]
    # A command with an operator is never allowed by a prefix rule: the person is asked.
    chained = {**call, "tool_input": {"command": "npm test && curl x"}, "tool_use_id": "t2"}
    assert (await agent.ok("POST", PATH, json=chained))["status"] == "pending"
    assert len(await questions(db)) == 1
    # The rule's decision is in the person's audit trail: which rule, for which agent.
    [event] = (await ann.ok("GET", "/audit"))["events"]
    assert (event["decision"], event["decided_by"], event["via"]) == ("allow", "rule", "rule")
    assert (event["rule_id"], event["agent"], event["tool"]) == (rule["id"], "laptop-cc", "Bash")


async def test_a_machine_deny_rule_denies_only_that_machine(server: Server, db: Database) -> None:
    ann, agent = Actor(server, "ann"), Actor(server, "ann", "cc")
    await ann.ok(
        "POST",
        "/approval-rules",
        201,
        json={"decision": "deny", "pattern": "Write", "scope": "machine", "scope_value": "ci"},
    )
    denied = await agent.ok("POST", PATH, json=write_call("/w/a.txt", machine="ci"))
    assert (denied["decision"], denied["decided_by"]) == ("deny", "rule")
    asked = await agent.ok("POST", PATH, json=write_call("/w/a.txt", machine="laptop"))
    assert asked["status"] == "pending"


async def test_no_rule_asks_in_the_inbox_and_the_persons_answer_decides(
    server: Server, db: Database
) -> None:
    ann, agent = Actor(server, "ann"), Actor(server, "ann", "laptop-cc")
    call = write_call("/home/ann/project/notes.md", "# notes\n")
    asked = await agent.ok("POST", PATH, json=call)
    assert asked["status"] == "pending" and asked["decision"] is None
    [question] = await questions(db)
    assert question["message_id"] == asked["id"] and question["mode"] == "inbox"
    assert question["asked_by"] == "laptop-cc" and question["status"] == "open"
    # The card shows the call (the web UI renders a Write's input as a diff).
    permission = question["meta"]["permission"]
    assert permission["tool"] == "Write" and permission["input"] == call["tool_input"]
    assert permission["machine"] == "laptop" and permission["tool_use_id"] == call["tool_use_id"]
    assert (
        "Claude Code on laptop wants to use Write: /home/ann/project/notes.md"
        in (question["content"])
    )
    # The person sees it among their open questions, as any question.
    assert [q["question"]["id"] for q in await ann.ok("GET", "/questions")] == [asked["id"]]

    waiting = asyncio.create_task(agent.ok("GET", f"{PATH}/{asked['id']}", params={"wait": 30}))
    await server.waiting_for(asked["id"])
    assert not waiting.done()
    await ann.ok("POST", f"/questions/{asked['id']}/answer", 201, json={"decision": "allow"})
    decided = await asyncio.wait_for(waiting, 30)
    assert decided["status"] == "decided" and decided["decision"] == "allow", decided
    assert decided["decided_by"] == "person" and decided["id"] == asked["id"]
    # Sent again (a hook run again), it is the same request, still decided.
    again = await agent.ok("POST", PATH, json=call)
    assert (again["id"], again["decision"]) == (asked["id"], "allow")
    assert len(await questions(db)) == 1


async def test_a_denial_carries_the_persons_words(server: Server, db: Database) -> None:
    ann, agent = Actor(server, "ann"), Actor(server, "ann", "cc")
    asked = await agent.ok("POST", PATH, json=write_call("/w/config.yml"))
    await ann.ok(
        "POST",
        f"/questions/{asked['id']}/answer",
        201,
        json={"text": "no, put it in config/local.yml instead"},
    )
    decided = await agent.ok("GET", f"{PATH}/{asked['id']}")
    assert (decided["decision"], decided["decided_by"]) == ("deny", "person")
    assert "put it in config/local.yml instead" in decided["reason"], decided
    plain = await agent.ok("POST", PATH, json=write_call("/w/other.yml"))
    await ann.ok("POST", f"/questions/{plain['id']}/answer", 201, json={"decision": "deny"})
    assert (await agent.ok("GET", f"{PATH}/{plain['id']}"))["decision"] == "deny"


async def test_only_the_agent_and_its_person_see_a_request(server: Server, db: Database) -> None:
    ann, agent = Actor(server, "ann"), Actor(server, "ann", "cc")
    other_agent, bob = Actor(server, "ann", "ci"), Actor(server, "bob")
    asked = await agent.ok("POST", PATH, json=write_call("/w/a"))
    path = f"{PATH}/{asked['id']}"
    assert (await ann.ok("GET", path))["status"] == "pending"  # the person
    for stranger in (other_agent, Actor(server, "bob", "cc")):
        response = await stranger.call("GET", path)
        assert response.status_code == 404, response.text
    refused = await bob.server.client.get(f"/api/ann{path}", headers=bob.headers)
    assert refused.status_code == 403
    # Another agent sending the same call id asks about its own call, not this one.
    mine = await other_agent.ok("POST", PATH, json={**write_call("/w/a"), "tool_use_id": "x"})
    theirs = await agent.ok("POST", PATH, json={**write_call("/w/a"), "tool_use_id": "x"})
    assert mine["id"] != theirs["id"]
    # A question that is not a permission request is not one here.
    plain = await agent.ok("POST", "/inbox/messages", 201, json={"text": "?", "kind": "question"})
    assert (await ann.call("GET", f"{PATH}/{plain['id']}")).status_code == 404
    for bad in ("0", "-1", str(2**63), "abc"):
        assert (await ann.call("GET", f"{PATH}/{bad}")).status_code in (404, 422)


async def test_a_persons_own_token_asks_as_claude_code(server: Server, db: Database) -> None:
    ann = Actor(server, "ann")
    asked = await ann.ok("POST", PATH, json=write_call("/w/a"))
    [question] = await questions(db)
    assert question["asked_by"] == "claude-code" and question["message_id"] == asked["id"]


async def test_a_burst_of_the_same_call_asks_once(server: Server, db: Database) -> None:
    agent = Actor(server, "ann", "cc")
    call = write_call("/w/burst.txt")
    found = await asyncio.gather(*(agent.ok("POST", PATH, json=call) for _ in range(20)))
    assert {f["id"] for f in found} == {found[0]["id"]} and found[0]["id"] is not None
    assert len(await questions(db)) == 1
    async with db.connection() as conn:
        rows = await conn.fetchval("SELECT count(*) FROM permission_requests")
    assert rows == 1


async def test_bad_requests_are_refused_and_store_nothing(server: Server, db: Database) -> None:
    agent = Actor(server, "ann", "cc")
    good = write_call("/w/a")
    bad: list[dict[str, Any]] = [
        {k: v for k, v in good.items() if k != "tool_use_id"},
        {**good, "tool_use_id": ""},
        {**good, "tool_use_id": "   "},
        {**good, "tool_input": "rm -rf /"},
        {**good, "tool_input": ["a"]},
        {**good, "tool_name": ""},
        {**good, "tool_name": "Write\x00"},
        {**good, "tool_input": {"file_path": "/w/\x00"}},
        {**good, "machine": "x" * 101},
        {**good, "tool_use_id": "t" * 201},
        {**good, "extra": 1},
        {**good, "cwd": 5},
    ]
    for body in bad:
        response = await agent.call("POST", PATH, json=body)
        assert response.status_code == 422, (body, response.text)
        assert error_code(response) == "validation_error"
    assert await questions(db) == []
    response = await agent.call("GET", f"{PATH}/1", params={"wait": 10_000})
    assert response.status_code == 422


async def test_nobody_answering_applies_the_default(make_server: Any, db: Database) -> None:
    async with make_server(PARLEY_QUESTION_TIMEOUT=1) as server:
        ann, agent = Actor(server, "ann"), Actor(server, "ann", "cc")
        rule = await ann.ok(
            "POST",
            "/approval-rules",
            201,
            json={"decision": "ask", "pattern": "Write(//w/ok/**)", "on_timeout": "allow"},
        )
        by_rule = await agent.ok("POST", PATH, json=write_call("/w/ok/a.txt"))
        unruled = await agent.ok("POST", PATH, json=write_call("/w/else.txt"))
        assert by_rule["rule_id"] == rule["id"] and unruled["rule_id"] is None
        allowed = await agent.ok("GET", f"{PATH}/{by_rule['id']}", params={"wait": 30})
        denied = await agent.ok("GET", f"{PATH}/{unruled['id']}", params={"wait": 30})
    assert (allowed["decision"], allowed["decided_by"]) == ("allow", "timeout"), allowed
    assert (denied["decision"], denied["decided_by"]) == ("deny", "timeout"), denied
    # Claude Code (and so the person reading its transcript) is told which rule decided
    assert f"Write(//w/ok/**) (rule {rule['id']})" in allowed["reason"], allowed
    assert "no approval rule matches" in denied["reason"], denied
