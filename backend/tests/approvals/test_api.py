"""Approval rules over real HTTP and PostgreSQL: the person's own, no one else's, never an
agent's to write, and a bad rule changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from parley.approvals import decide
from parley.db import Database
from tests.accounts.helpers import bearer, browser, make_key, signup
from tests.runs.helpers import Actor, error_code


async def rules_table(db: Database) -> list[tuple[Any, ...]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT user_id, id, decision, pattern, scope, scope_value, on_timeout, note,"
            " updated_at FROM approval_rules ORDER BY user_id, id"
        )
    return [tuple(r) for r in rows]


async def test_a_person_adds_lists_changes_and_removes_rules(server: Any, db: Database) -> None:
    ann = Actor(server, "ann")
    made = await ann.ok(
        "POST", "/approval-rules", 201, json={"decision": "allow", "pattern": " Bash(npm test:*) "}
    )
    assert made["pattern"] == "Bash(npm test:*)"  # stored as read
    assert (made["scope"], made["scope_value"], made["on_timeout"]) == ("all", "", "deny")
    assert (made["source"], made["question_id"]) == ("hand", None)
    scoped = await ann.ok(
        "POST",
        "/approval-rules",
        201,
        json={
            "decision": "deny",
            "pattern": "Edit(//etc/**)",
            "scope": "machine",
            "scope_value": "  build   box ",
            "on_timeout": "allow",
            "note": "never /etc",
        },
    )
    assert scoped["scope_value"] == "build box"
    listed = await ann.ok("GET", "/approval-rules")
    assert [r["id"] for r in listed] == [made["id"], scoped["id"]]

    changed = await ann.ok(
        "PATCH", f"/approval-rules/{made['id']}", json={"scope": "agent", "scope_value": "ci"}
    )
    assert (changed["scope"], changed["scope_value"]) == ("agent", "ci")
    assert changed["updated_at"] > made["updated_at"] and changed["pattern"] == made["pattern"]
    widened = await ann.ok("PATCH", f"/approval-rules/{made['id']}", json={"scope": "all"})
    assert (widened["scope"], widened["scope_value"]) == ("all", "")

    gone = await ann.call("DELETE", f"/approval-rules/{scoped['id']}")
    assert gone.status_code == 204
    assert [r["id"] for r in await ann.ok("GET", "/approval-rules")] == [made["id"]]
    again = await ann.call("DELETE", f"/approval-rules/{scoped['id']}")
    assert again.status_code == 404


async def test_rules_decide_with_deny_first_and_the_narrower_scope_reported(
    server: Any, db: Database
) -> None:
    ann = Actor(server, "ann")
    for body in (
        {"decision": "allow", "pattern": "Bash(git:*)"},
        {"decision": "allow", "pattern": "Bash(git push:*)", "scope": "agent", "scope_value": "ci"},
        {"decision": "deny", "pattern": "Bash(git push --force:*)"},
        {
            "decision": "ask",
            "pattern": "Bash(git push:*)",
            "scope": "machine",
            "scope_value": "laptop",
            "on_timeout": "allow",
        },
    ):
        await ann.ok("POST", "/approval-rules", 201, json=body)

    async def decided(command: str, agent: str | None = None, machine: str | None = None) -> Any:
        rule = await decide.decide(
            db,
            user_id="ann",
            agent=agent,
            machine=machine,
            tool="Bash",
            tool_input={"command": command},
            cwd="/w",
        )
        return None if rule is None else (rule.decision, rule.pattern)

    assert await decided("git status") == ("allow", "Bash(git:*)")
    assert await decided("git push", agent="ci") == ("allow", "Bash(git push:*)")
    assert await decided("git push --force x", agent="ci") == ("deny", "Bash(git push --force:*)")
    assert await decided("git push", agent="ci", machine="laptop") == ("ask", "Bash(git push:*)")
    assert await decided("git status && curl x") is None  # no operator rides on an allow
    assert await decided("ls") is None
    assert (
        await decide.decide(
            db,
            user_id="bob",
            agent=None,
            machine=None,
            tool="Bash",
            tool_input={"command": "git status"},
            cwd="/w",
        )
        is None
    )  # another person's rules decide nothing of bob's


async def test_an_agent_key_cannot_read_or_write_rules(make_server: Any, db: Database) -> None:
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        await signup(web, "alice")
        # The person's own session cookie manages rules...
        made = await web.post(
            "/api/alice/approval-rules", json={"decision": "allow", "pattern": "Read"}
        )
        assert made.status_code == 201, made.text
        key = await make_key(web, "alice", agent="planner")
        before = await rules_table(db)
        for headers in (bearer(key["secret"]), server.headers("alice", agent="planner")):
            for method, path, body in (
                ("GET", "/api/alice/approval-rules", None),
                ("POST", "/api/alice/approval-rules", {"decision": "allow", "pattern": "Bash"}),
                (
                    "PATCH",
                    f"/api/alice/approval-rules/{made.json()['id']}",
                    {"decision": "allow", "pattern": "Bash"},
                ),
                ("DELETE", f"/api/alice/approval-rules/{made.json()['id']}", None),
                ("POST", "/api/alice/approval-rules/from-question/1", None),
            ):
                refused = await server.client.request(method, path, json=body, headers=headers)
                assert refused.status_code == 403, (method, path, refused.text)
                assert error_code(refused) == "agent_not_allowed"
        assert await rules_table(db) == before
        # ...and a cookie from another site's page does not.
        async with httpx.AsyncClient(
            base_url=server.base_url,
            cookies=web.cookies,
            headers={"Origin": "https://evil.example"},
        ) as other_site:
            forged = await other_site.post(
                "/api/alice/approval-rules", json={"decision": "allow", "pattern": "Bash"}
            )
        assert forged.status_code == 403
        assert await rules_table(db) == before


async def test_another_persons_rules_are_not_found_nor_reachable(server: Any, db: Database) -> None:
    ann, bob = Actor(server, "ann"), Actor(server, "bob")
    rule = await ann.ok(
        "POST", "/approval-rules", 201, json={"decision": "deny", "pattern": "Bash(rm:*)"}
    )
    before = await rules_table(db)
    assert await bob.ok("GET", "/approval-rules") == []
    for method, body in (("PATCH", {"decision": "allow"}), ("DELETE", None)):
        response = await bob.call(method, f"/approval-rules/{rule['id']}", json=body)
        assert response.status_code == 404 and error_code(response) == "not_found"
    for path in ("/api/ann/approval-rules", f"/api/ann/approval-rules/{rule['id']}"):
        crossed = await server.client.request(
            "PATCH" if path.endswith(str(rule["id"])) else "GET",
            path,
            json={"decision": "allow"},
            headers=server.headers("bob"),
        )
        assert crossed.status_code == 403
    for rule_id in ("0", "-1", str(2**63), "1e3", "%31", "abc"):
        odd = await bob.call("DELETE", f"/approval-rules/{rule_id}")
        assert odd.status_code in (404, 422), (rule_id, odd.status_code)
    assert await rules_table(db) == before


async def test_a_bad_rule_is_a_clear_422_and_changes_nothing(server: Any, db: Database) -> None:
    ann = Actor(server, "ann")
    rule = await ann.ok(
        "POST", "/approval-rules", 201, json={"decision": "allow", "pattern": "Bash(ls *)"}
    )
    before = await rules_table(db)
    for body, code, field in (
        ({"decision": "allow", "pattern": "bash(ls)"}, "bad_pattern", "pattern"),
        ({"decision": "allow", "pattern": "Edit(../x/**)"}, "bad_pattern", "pattern"),
        ({"decision": "allow", "pattern": "Bash(a\nb)"}, "bad_pattern", "pattern"),
        ({"decision": "allow", "pattern": "Nope(x)"}, "bad_pattern", "pattern"),
        ({"decision": "maybe", "pattern": "Bash"}, "validation_error", "decision"),
        (
            {"decision": "allow", "pattern": "Bash", "scope": "agent"},
            "validation_error",
            "scope_value",
        ),
        (
            {"decision": "allow", "pattern": "Bash", "scope": "agent", "scope_value": "a b"},
            "validation_error",
            "scope_value",
        ),
        (
            {"decision": "allow", "pattern": "Bash", "scope_value": "x"},
            "validation_error",
            "scope_value",
        ),
        (
            {"decision": "allow", "pattern": "Bash", "on_timeout": "ask"},
            "validation_error",
            "on_timeout",
        ),
        ({"decision": "allow", "pattern": "B" * 1001}, "validation_error", "pattern"),
        ({"decision": "allow", "pattern": "Bash", "extra": 1}, "validation_error", "extra"),
        ({"decision": "allow", "pattern": "Bash(\x00)"}, "validation_error", "pattern"),
    ):
        refused = await ann.call("POST", "/approval-rules", json=body)
        assert refused.status_code == 422, (body, refused.text)
        error = refused.json()["error"]
        assert error["code"] == code and error["message"], (body, error)
        assert field in str(error.get("details")), (body, error)
    bad_patch = await ann.call(
        "PATCH", f"/approval-rules/{rule['id']}", json={"pattern": "Edit(!x)", "decision": "deny"}
    )
    assert bad_patch.status_code == 422 and error_code(bad_patch) == "bad_pattern"
    half = await ann.call("PATCH", f"/approval-rules/{rule['id']}", json={"scope": "machine"})
    assert half.status_code == 422  # a machine scope needs the machine's name
    same = await ann.call(
        "POST", "/approval-rules", json={"decision": "deny", "pattern": "Bash(ls *)"}
    )
    assert same.status_code == 409 and error_code(same) == "rule_exists"
    assert await rules_table(db) == before


async def test_a_burst_of_posts_stores_each_distinct_rule_once(server: Any, db: Database) -> None:
    ann = Actor(server, "ann")
    distinct = [
        ann.call("POST", "/approval-rules", json={"decision": "allow", "pattern": f"Bash(t{i})"})
        for i in range(12)
    ]
    same = [
        ann.call("POST", "/approval-rules", json={"decision": "deny", "pattern": "Bash(rm:*)"})
        for _ in range(8)
    ]
    replies = await asyncio.gather(*distinct, *same)
    assert [r.status_code for r in replies[:12]] == [201] * 12
    assert sorted(r.status_code for r in replies[12:]) == [201] + [409] * 7
    rows = await rules_table(db)
    assert len(rows) == 13 and len({r[1] for r in rows}) == 13
    assert sorted(r[3] for r in rows if r[2] == "deny") == ["Bash(rm:*)"]


async def test_always_allow_takes_only_the_persons_own_permission_question(
    server: Any, db: Database
) -> None:
    ann, bob = Actor(server, "ann"), Actor(server, "bob")
    question = await Actor(server, "ann", "helper").ask("/inbox/messages", "Which one?")
    before = await rules_table(db)
    plain = await ann.call("POST", f"/approval-rules/from-question/{question}")
    assert plain.status_code == 422 and error_code(plain) == "not_a_permission"
    for who, question_id in ((bob, question), (ann, 10**9), (ann, 2**63)):
        missing = await who.call("POST", f"/approval-rules/from-question/{question_id}")
        assert missing.status_code in (404, 422), missing.text
    assert await rules_table(db) == before
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM questions") == "open"
