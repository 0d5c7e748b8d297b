"""The audit trail over real HTTP and PostgreSQL: each way a decision is made shows up once
with who or what made it, through what and how long it waited; the person reads and exports
their own trail only, an admin anyone's, an agent nobody's; old events go."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from parley import audit
from parley.auth import Caller
from parley.db import Database
from parley.questions.ask import withdraw
from parley.runs.sweeper import sweep_once
from parley.work import permissions
from tests.accounts.helpers import bearer, browser, make_key, signup
from tests.conftest import Server, settings_for, snapshot, token_for
from tests.push.fake_push import FakePushService
from tests.push.test_delivery import subscribe
from tests.runs.helpers import Actor, claimed, delegate, error_code
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client

FAST = {"PARLEY_SWEEP_SECONDS": 0.2}


async def trail(person: Actor, **params: Any) -> list[dict[str, Any]]:
    page = await person.ok("GET", "/audit", params=params)
    events: list[dict[str, Any]] = page["events"]
    return events


async def cookie_headers(server: Server, user: str) -> dict[str, str]:
    """What the web UI sends: the person's session cookie, from its origin."""
    login = await server.client.post("/api/auth/dev-login", json={"user_id": user})
    assert login.status_code in (200, 201), login.text
    cookie = login.cookies["parley_session"]
    server.client.cookies.clear()
    return {"Cookie": f"parley_session={cookie}", "Origin": server.settings.web_origin}


def check_times(event: dict[str, Any]) -> None:
    asked = datetime.fromisoformat(event["asked_at"])
    decided = datetime.fromisoformat(event["decided_at"])
    assert event["waited_ms"] >= 0 and decided >= asked
    assert abs((decided - asked).total_seconds() * 1000 - event["waited_ms"]) < 1000


async def test_a_persons_answers_say_how_they_came_rest_web_push_and_email_link(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        ids = await subscribe(person, push_service, "phone")
        web = await cookie_headers(server, "alice")
        asked = [await agent.ask("/inbox/messages", f"Question {n}?") for n in range(5)]

        await person.ok("POST", f"/questions/{asked[0]}/answer", 201, json={"text": "by REST"})
        for question, extra, text in (
            (asked[1], {}, "from the page"),
            (asked[2], {"X-Parley-Device": str(ids["phone"])}, "from the phone"),
            (asked[3], {"X-Parley-Via": "email_link"}, "from the email"),
        ):
            answered = await server.client.post(
                f"/api/alice/questions/{question}/answer",
                json={"text": text},
                headers=web | extra,
            )
            assert answered.status_code == 201, answered.text
        # A channel the web UI does not send is refused, and nothing is stored.
        before = await snapshot(db)
        refused = await server.client.post(
            f"/api/alice/questions/{asked[4]}/answer",
            json={"text": "forged"},
            headers=web | {"X-Parley-Via": "rule"},
        )
        assert refused.status_code == 422, refused.text
        assert await snapshot(db) == before

        events = {e["question_id"]: e for e in await trail(person)}
        assert set(events) == set(asked[:4])
        expected = {
            asked[0]: ("rest", "by REST", None),
            asked[1]: ("web", "from the page", None),
            asked[2]: ("push_action", "from the phone", ids["phone"]),
            asked[3]: ("email_link", "from the email", None),
        }
        for question, (via, text, device) in expected.items():
            event = events[question]
            assert (event["via"], event["answer"], event["device_id"]) == (via, text, device)
            assert (event["decided_by"], event["decision"], event["decider"]) == (
                "person",
                "answer",
                None,
            )
            assert (event["kind"], event["agent"], event["machine"]) == (
                "question",
                "planner",
                None,
            )
            assert event["asked"] == f"Question {asked.index(question)}?"
            check_times(event)
        # The web UI's answers name the web session they came from; REST's none.
        assert events[asked[0]]["session_id"] is None
        assert events[asked[1]]["session_id"] is not None


async def test_a_rule_decides_a_work_sessions_call_and_says_which(
    server: Server, db: Database
) -> None:
    person = Actor(server, "alice")
    deny = await person.ok(
        "POST", "/approval-rules", 201, json={"decision": "deny", "pattern": "Bash(rm:*)"}
    )
    allow = await person.ok(
        "POST", "/approval-rules", 201, json={"decision": "allow", "pattern": "Write(notes/**)"}
    )
    await person.ok("POST", "/approval-rules", 201, json={"decision": "ask", "pattern": "WebFetch"})

    async def ruled(tool: str, tool_input: dict[str, Any]) -> Any:
        return await permissions.ruled(
            db, user_id="alice", tool=tool, tool_input=tool_input, cwd="/work/project"
        )

    assert (await ruled("Bash", {"command": "sudo rm -rf /"})).id == deny["id"]
    write = {"file_path": "/work/project/notes/a.md", "content": "x" * 10_000}
    assert (await ruled("Write", write)).id == allow["id"]
    # An ask rule asks (its question is the person's to answer); no rule decides nothing.
    assert (await ruled("WebFetch", {"url": "https://example.com/"})).decision == "ask"
    assert await ruled("Bash", {"command": "ls"}) is None

    denied, allowed = sorted(await trail(person), key=lambda e: e["id"])
    assert (denied["decision"], denied["decided_by"], denied["via"]) == ("deny", "rule", "rule")
    assert (denied["rule_id"], denied["rule_pattern"]) == (deny["id"], "Bash(rm:*)")
    assert (denied["tool"], denied["tool_input"]) == ("Bash", {"command": "sudo rm -rf /"})
    assert (denied["kind"], denied["agent"], denied["machine"]) == (
        "permission",
        "claude-code",
        None,
    )
    assert denied["question_id"] is None and "sudo rm -rf /" in denied["asked"]
    check_times(denied)
    assert (allowed["decision"], allowed["rule_pattern"]) == ("allow", "Write(notes/**)")
    # A large input is kept as its start, marked as cut.
    assert allowed["tool_input"]["truncated"] is True
    assert len(allowed["tool_input"]["preview"]) == 4000


async def test_a_timeout_default_and_an_expiry_are_in_the_trail(
    make_server: Any, db: Database
) -> None:
    async with make_server(**FAST) as server:
        async with mcp_client(server.base_url, token_for("alice", agent="ops")) as client:
            defaulted = data(
                await client.call_tool(
                    "ask_user",
                    {"question": "Delete the branch?", "timeout_s": 1, "on_timeout": "deny"},
                )
            )
            expired = data(
                await client.call_tool("ask_user", {"question": "Lunch?", "timeout_s": 1})
            )
        assert defaulted["answer"] == "no" and expired["status"] == "timed_out"
        events = {e["question_id"]: e for e in await trail(Actor(server, "alice"))}
        by_default = events[defaulted["question_id"]]
        assert (by_default["decided_by"], by_default["via"]) == ("timeout_default", "timeout")
        assert (by_default["decision"], by_default["answer"]) == ("answer", "no")
        assert by_default["agent"] == "ops" and by_default["waited_ms"] >= 1000
        gone = events[expired["question_id"]]
        assert (gone["decided_by"], gone["via"], gone["decision"]) == (
            "timeout_default",
            "timeout",
            "timed_out",
        )
        assert gone["asked"] == "Lunch?" and gone["waited_ms"] >= 1000
        check_times(gone)
        assert len(events) == 2  # each once, whichever read or sweep closed it


async def test_a_parent_agent_answering_its_child_and_a_withdrawal(
    server: Server, db: Database
) -> None:
    architect, coder = Actor(server, "alice", "architect"), Actor(server, "alice", "coder")
    run = await architect.start_run()
    thread = await delegate(architect, run, "Port it")
    await claimed(coder, thread)
    path = f"/conversations/{thread}/messages"
    over_rest = await coder.ask(path, "Tabs or spaces?")
    await architect.post(path, "Spaces", kind="answer", reply_to=over_rest)
    over_mcp = await coder.ask(path, "Which licence?")
    async with mcp_client(server.base_url, token_for("alice", agent="architect")) as client:
        answered = await client.call_tool(
            "answer_child", {"thread_id": thread, "question_id": over_mcp, "text": "MIT"}
        )
        assert not answered.is_error
    taken_back = await coder.ask(path, "Shall I also port the tests?")
    await withdraw(db, caller=Caller("alice", "coder"), question_id=taken_back)
    await withdraw(db, caller=Caller("alice", "coder"), question_id=taken_back)  # once only

    events = {e["question_id"]: e for e in await trail(Actor(server, "alice"))}
    assert set(events) == {over_rest, over_mcp, taken_back}
    for question, via, text in ((over_rest, "rest", "Spaces"), (over_mcp, "mcp", "MIT")):
        event = events[question]
        assert (event["decided_by"], event["decider"], event["agent"]) == (
            "agent",
            "architect",
            "coder",
        )
        assert (event["via"], event["decision"], event["answer"]) == (via, "answer", text)
        check_times(event)
    withdrawn = events[taken_back]
    assert (withdrawn["decision"], withdrawn["decided_by"], withdrawn["decider"]) == (
        "withdrawn",
        "agent",
        "coder",
    )


async def _seed(db: Database) -> None:
    """Events of two people, made through `audit.record` as any door would."""
    base = {"kind": "question", "decided_by": "person", "via": "rest"}
    for n in range(5):
        await audit.record(
            db,
            user_id="alice",
            asked=f"alice {n}",
            agent="planner" if n % 2 == 0 else "ops",
            decision="answer" if n < 3 else "deny",
            answer="ok",
            asked_at=datetime.now(UTC) - timedelta(seconds=3),
            **base,
        )
    await audit.record(db, user_id="bob", asked="bob's", decision="allow", **base)


async def test_filters_pages_and_the_json_lines_export(server: Server, db: Database) -> None:
    await _seed(db)
    alice = Actor(server, "alice")
    everything = await trail(alice)
    assert [e["asked"] for e in everything] == [f"alice {n}" for n in (4, 3, 2, 1, 0)]
    assert all(e["waited_ms"] >= 3000 for e in everything)
    assert [e["asked"] for e in await trail(alice, agent="ops")] == ["alice 3", "alice 1"]
    assert [e["asked"] for e in await trail(alice, decision="deny")] == ["alice 4", "alice 3"]
    assert await trail(alice, since=(datetime.now(UTC) + timedelta(minutes=1)).isoformat()) == []
    since = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    assert len(await trail(alice, since=since, agent="planner")) == 3

    # Pages: newest first, no event twice, none left out.
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = await alice.ok("GET", "/audit", params=params)
        seen += [e["asked"] for e in page["events"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [e["asked"] for e in everything]

    for params, field in (
        ({"decision": "maybe"}, "decision"),
        ({"since": "2026-01-01T00:00:00"}, "since"),  # no zone
        ({"since": "yesterday"}, "since"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"cursor": "1' OR 1=1"}, "cursor"),
        ({"cursor": 0}, "cursor"),
        ({"cursor": 2**63}, "cursor"),
        ({"agent": "x" * 101}, "agent"),
    ):
        bad = await alice.call("GET", "/audit", params=params)
        assert bad.status_code == 422, (params, bad.text)
        assert field in bad.text

    exported = await alice.call("GET", "/audit.jsonl", params={"decision": "answer"})
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/jsonl")
    assert "attachment" in exported.headers["content-disposition"]
    lines = exported.text.splitlines()
    assert exported.text.endswith("\n") and len(lines) == 3
    parsed = [json.loads(line) for line in lines]
    assert [e["asked"] for e in parsed] == ["alice 2", "alice 1", "alice 0"]
    assert all(e["user_id"] == "alice" and e["decision"] == "answer" for e in parsed)
    bad = await alice.call("GET", "/audit.jsonl", params={"decision": "maybe"})
    assert bad.status_code == 422


async def test_only_the_person_or_an_admin_reads_a_trail(make_server: Any, db: Database) -> None:
    async with make_server(PARLEY_SIGNUP="open") as server:
        await _only_the_person_or_an_admin(server, db)


async def _only_the_person_or_an_admin(server: Server, db: Database) -> None:
    await _seed(db)
    paths = ("/api/alice/audit", "/api/alice/audit.jsonl")
    async with browser(server.base_url) as web:
        await signup(web, "carol")
        key = await make_key(web, "carol")
        for path in (p.replace("alice", "carol") for p in paths):
            for headers in (bearer(key["secret"]), server.headers("carol", agent="planner")):
                refused = await server.client.get(path, headers=headers)
                assert refused.status_code == 403, refused.text
                assert error_code(refused) == "agent_not_allowed"
        # Another person's trail, with a cookie or a token, in any spelling of the path.
        for path in (*paths, "/api/ALICE/audit", "/api/alice%2F..%2Fcarol/audit"):
            refused = await web.get(path)
            assert refused.status_code in (403, 404, 422), (path, refused.text)
            assert "alice 0" not in refused.text
        bob = await server.client.get(paths[0], headers=server.headers("bob"))
        assert bob.status_code == 403
        assert [e["asked"] for e in await trail(Actor(server, "bob"))] == ["bob's"]
        unsigned = await server.client.get(paths[0])
        assert unsigned.status_code == 401
    async with db.connection() as conn:
        await conn.execute("INSERT INTO accounts (user_id, is_admin) VALUES ('root', true)")
    # An admin reads anyone's; an admin's agent does not.
    root = server.headers("root")
    for user, count in (("alice", 5), ("bob", 1)):
        seen = await server.client.get(f"/api/{user}/audit", headers=root)
        assert seen.status_code == 200 and len(seen.json()["events"]) == count
        exported = await server.client.get(f"/api/{user}/audit.jsonl", headers=root)
        assert len(exported.text.splitlines()) == count
    as_agent = await server.client.get(paths[0], headers=server.headers("root", agent="ci"))
    assert as_agent.status_code == 403


async def test_old_events_are_swept_and_nothing_else(server: Server, db: Database) -> None:
    await _seed(db)
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE audit_events SET decided_at = now() - interval '400 days'"
            " WHERE asked IN ('alice 0', 'alice 1', 'alice 2', 'bob''s')"
        )
        await conn.execute(
            "UPDATE audit_events SET decided_at = now() - interval '300 days'"
            " WHERE asked = 'alice 3'"
        )
    assert await audit.sweep(db, days=365, batch=2) == 4  # alice's in two batches, bob's
    assert await audit.sweep(db, days=365) == 0
    assert [e["asked"] for e in await trail(Actor(server, "alice"))] == ["alice 4", "alice 3"]
    assert await trail(Actor(server, "bob")) == []
    # The instances' sweep keeps to PARLEY_AUDIT_DAYS.
    await sweep_once(db, settings_for(PARLEY_AUDIT_DAYS=200))
    assert [e["asked"] for e in await trail(Actor(server, "alice"))] == ["alice 4"]


async def test_a_burst_of_answers_records_each_decision_once(server: Server, db: Database) -> None:
    person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
    question = await agent.ask("/inbox/messages", "Ship it?")
    results = await asyncio.gather(
        *(
            person.call("POST", f"/questions/{question}/answer", json={"text": f"yes {n}"})
            for n in range(8)
        )
    )
    assert sorted(r.status_code for r in results) == [201] + [409] * 7
    [event] = await trail(person)
    winner = next(r for r in results if r.status_code == 201).json()
    assert event["answer"] == winner["content"]
