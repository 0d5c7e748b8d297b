"""A tool call left waiting reaches the person again: a reminder push after
PARLEY_PERMISSION_REMIND_MINUTES, then an email whose one-time link opens the card, where
"Always allow this" answers it and makes the rule, recorded as done through the emailed link."""

from __future__ import annotations

from typing import Any

from parley.db import Database
from tests.approvals.test_api import rules_table
from tests.audit.test_trail import cookie_headers, trail
from tests.fakes.smtp import reminder_link, smtp_server
from tests.permission_requests.helpers import write_call
from tests.push.fake_push import FakePushService
from tests.push.test_delivery import subscribe
from tests.runs.helpers import Actor

PATH = "/permission-requests"


async def test_a_waiting_tool_call_is_reminded_then_emailed_and_always_allowed_from_the_link(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    with smtp_server() as (mailbox, port):
        async with push_server(
            PARLEY_SMTP_URL=f"smtp://127.0.0.1:{port}",
            PARLEY_SWEEP_SECONDS=0.2,
            PARLEY_PERMISSION_REMIND_MINUTES=0.01,
        ) as server:
            web = await cookie_headers(server, "alice")
            async with db.connection() as conn:
                await conn.execute(
                    "UPDATE accounts SET email = 'alice@example.com', email_verified_at = now()"
                    " WHERE user_id = 'alice'"
                )
            person, agent = Actor(server, "alice"), Actor(server, "alice", "laptop-cc")
            await subscribe(person, push_service, "phone")
            asked = await agent.ok("POST", PATH, json=write_call("/w/notes.md"))
            assert asked["status"] == "pending"
            await push_service.wait_for(lambda: len(push_service.delivered("phone")) == 2)
            first, reminder = push_service.delivered("phone")
            assert first["question_id"] == reminder["question_id"] == asked["id"]
            assert reminder["title"].startswith("Still waiting")
            assert "always" in [a["action"] for a in reminder["actions"]]
            body, path = await reminder_link(mailbox, to="alice@example.com")
            assert "Write" in body and "/w/notes.md" in body, body
            opened = await server.client.get(f"/api/{path}", follow_redirects=False)
            assert opened.status_code == 303
            assert opened.headers["location"].endswith(f"?question={asked['id']}&via=email_link")
            # the card the link opened: "Always allow this" (the web UI sends where it came from)
            pressed = await server.client.post(
                f"/api/alice/approval-rules/from-question/{asked['id']}",
                json={},
                headers=web | {"X-Parley-Via": "email_link"},
            )
            assert pressed.status_code == 201, pressed.text
            decided = await agent.ok("GET", f"{PATH}/{asked['id']}", params={"wait": 10})
            assert (decided["decision"], decided["decided_by"]) == ("allow", "person")
            [event] = await trail(person)
            assert (event["via"], event["decision"]) == ("email_link", "allow")
            [rule] = await rules_table(db)
            # the same call again: the rule answers, nobody is asked
            again = await agent.ok("POST", PATH, json=write_call("/w/notes.md"))
            assert (again["status"], again["decided_by"], again["id"]) == ("decided", "rule", None)
            assert again["rule_id"] == rule[1]
