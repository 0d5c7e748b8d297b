""" "Always allow" on a permission request's notification, over real HTTP, PostgreSQL and
the fake push service: the push offers it (after Allow and Deny) only for a permission
request; pressed, it answers allow and makes the narrowest rule in one request, recorded as
through the notification of that device; the same call is then allowed unasked. Pressed
again, by someone else, from another site, by an agent or with a forged header, it changes
nothing. The web UI's "Always allow this" on a question an emailed link opened says so."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.approvals.test_api import rules_table
from tests.audit.test_trail import cookie_headers, trail
from tests.conftest import Server, snapshot
from tests.permission_requests.helpers import questions, write_call
from tests.push.fake_push import FakePushService
from tests.push.test_delivery import subscribe
from tests.runs.helpers import Actor, error_code

PATH = "/permission-requests"


async def pushed(service: FakePushService, device: str, question: int) -> dict[str, Any]:
    """The question's push to `device`, once it arrived."""

    def found() -> list[dict[str, Any]]:
        return [
            p
            for p in service.delivered(device)
            if p["kind"] == "question" and p["question_id"] == question
        ]

    await service.wait_for(lambda: bool(found()))
    return found()[0]


async def answers(db: Database, question: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT author, content, meta FROM messages WHERE reply_to = $1 AND kind = 'answer'",
            question,
        )
    return [dict(r) for r in rows]


async def test_only_a_permission_requests_push_offers_always_allow_third(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "laptop-cc")
        await subscribe(person, push_service, "phone")
        asked = await agent.ok("POST", PATH, json=write_call("/home/alice/notes.md"))
        yes_no = await agent.ask("/inbox/messages", "Should I merge the PR?")
        plain = await agent.ask("/inbox/messages", "Which branch did you mean")

        permission = await pushed(push_service, "phone", asked["id"])
        # Allow and Deny first: a browser showing two buttons shows those.
        assert permission["actions"] == [
            {"action": "allow", "title": "Allow"},
            {"action": "deny", "title": "Deny"},
            {"action": "always", "title": "Always allow"},
        ]
        route = permission["answer"]
        assert route["path"] == f"/api/alice/questions/{asked['id']}/answer"
        assert route["allow"] == {"decision": "allow"} and route["always"] == {}
        assert route["paths"] == {
            "always": f"/api/alice/approval-rules/from-question/{asked['id']}"
        }
        for question, actions in ((yes_no, ["yes", "no"]), (plain, [])):
            push = await pushed(push_service, "phone", question)
            assert [a["action"] for a in push["actions"]] == actions
            assert "always" not in push["answer"] and "paths" not in push["answer"]


async def test_always_allow_from_a_notification_answers_makes_the_rule_and_names_the_device(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "laptop-cc")
        ids = await subscribe(person, push_service, "phone", "laptop")
        call = write_call("/home/alice/project/notes.md")
        asked = await agent.ok("POST", PATH, json=call)
        push = await pushed(push_service, "phone", asked["id"])
        waiting = asyncio.create_task(agent.ok("GET", f"{PATH}/{asked['id']}", params={"wait": 30}))
        await server.waiting_for(asked["id"])

        # What the service worker sends for "Always allow": the payload's own path and body,
        # the person's cookie from the web UI's origin, and its device.
        phone = await cookie_headers(server, "alice") | {"X-Parley-Device": str(ids["phone"])}
        pressed = await server.client.post(
            push["answer"]["paths"]["always"], json=push["answer"]["always"], headers=phone
        )
        assert pressed.status_code == 201, pressed.text
        made = pressed.json()
        assert made["rule"]["pattern"] == "Edit(//home/alice/project/notes.md)"
        assert (made["rule"]["decision"], made["rule"]["source"]) == ("allow", "always")
        assert (made["rule"]["scope"], made["rule"]["question_id"]) == ("all", asked["id"])
        decided = await asyncio.wait_for(waiting, 30)
        assert (decided["decision"], decided["decided_by"]) == ("allow", "person")
        [answer] = await answers(db, asked["id"])
        assert answer["author"] == "alice"
        assert answer["meta"] == {"decision": "allow", "device": ids["phone"]}
        [event] = await trail(person)
        assert (event["question_id"], event["decision"], event["decided_by"]) == (
            asked["id"],
            "allow",
            "person",
        )
        assert (event["via"], event["device_id"]) == ("push_action", ids["phone"])
        assert event["session_id"] is not None

        # The same call again (Claude Code asking anew) is allowed by the rule, unasked.
        again = await agent.ok("POST", PATH, json={**call, "tool_use_id": "toolu_again"})
        assert (again["status"], again["decision"]) == ("decided", "allow")
        assert (again["decided_by"], again["rule_id"]) == ("rule", made["rule"]["id"])
        assert len(await questions(db)) == 1

        # The notification pressed again, here or on the laptop: refused, nothing changes.
        rules_before, trail_before = await rules_table(db), await trail(person)
        laptop = phone | {"X-Parley-Device": str(ids["laptop"])}
        for headers in (phone, laptop):
            replayed = await server.client.post(
                push["answer"]["paths"]["always"], json={}, headers=headers
            )
            assert replayed.status_code == 409 and error_code(replayed) == "already_answered"
        assert await rules_table(db) == rules_before
        assert await trail(person) == trail_before
        assert len(await answers(db, asked["id"])) == 1


async def test_a_burst_of_always_presses_on_two_devices_answers_once_with_one_rule(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "laptop-cc")
        ids = await subscribe(person, push_service, "phone", "laptop")
        web = await cookie_headers(server, "alice")
        for round_ in range(3):
            asked = await agent.ok("POST", PATH, json=write_call(f"/w/burst-{round_}.txt"))
            path = f"/api/alice/approval-rules/from-question/{asked['id']}"
            presses = [
                server.client.post(path, json={}, headers=web | {"X-Parley-Device": str(device)})
                for device in (*ids.values(), *ids.values(), *ids.values())
            ]
            replies = await asyncio.gather(*presses)
            assert sorted(r.status_code for r in replies) == [201] + [409] * 5
            [won] = [r.json() for r in replies if r.status_code == 201]
            # The rule the winner reports is the one stored, and the only one for this call.
            stored = [r for r in await rules_table(db) if r[3] == f"Edit(//w/burst-{round_}.txt)"]
            assert [r[1] for r in stored] == [won["rule"]["id"]]
            assert len(await answers(db, asked["id"])) == 1
            assert [e["question_id"] for e in await trail(person)].count(asked["id"]) == 1
        assert len(await rules_table(db)) == 3


async def test_a_forged_foreign_or_cross_site_always_changes_nothing(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        alice, bob = Actor(server, "alice"), Actor(server, "bob")
        agent = Actor(server, "alice", "laptop-cc")
        ids = await subscribe(alice, push_service, "phone")
        bob_ids = await subscribe(bob, push_service, "bob-phone")
        asked = await agent.ok("POST", PATH, json=write_call("/w/secret.txt"))
        yes_no = await agent.ask("/inbox/messages", "Should I merge the PR?")
        alice_web = await cookie_headers(server, "alice")
        bob_web = await cookie_headers(server, "bob")
        own = f"/api/alice/approval-rules/from-question/{asked['id']}"
        device = {"X-Parley-Device": str(ids["phone"])}
        before = await snapshot(db), await rules_table(db)

        refused: list[tuple[str, dict[str, str], int]] = [
            (own, device, 401),  # no session: the worker of a signed-out device
            (own, bob_web | {"X-Parley-Device": str(bob_ids["bob-phone"])}, 403),  # bob's
            (f"/api/bob/approval-rules/from-question/{asked['id']}", bob_web, 404),
            (own, alice_web | {"Origin": "https://evil.example"} | device, 403),  # cross-site
            (own, {k: v for k, v in alice_web.items() if k != "Origin"} | device, 403),
            (own, agent.headers | device, 403),  # her agent never makes her rules
            (f"/api/alice/approval-rules/from-question/{yes_no}", alice_web | device, 422),
            (own, alice_web | {"X-Parley-Device": "1 OR 1=1"}, 422),
            (own, alice_web | {"X-Parley-Via": "rule"}, 422),
            (own, alice_web | {"X-Parley-Via": "push_action"}, 422),
            (f"/api/alice/approval-rules/from-question/{asked['id']}%2F..", alice_web, 404),
            ("/api/alice/approval-rules/from-question/-1", alice_web | device, 404),
            (f"/api/Alice/approval-rules/from-question/{asked['id']}", alice_web | device, 403),
        ]
        for path, headers, status in refused:
            response = await server.client.post(path, json={}, headers=headers)
            assert response.status_code == status, (path, headers, response.text)
            assert "error" in response.json()
        assert (await snapshot(db), await rules_table(db)) == before
        assert await trail(alice) == [] and await trail(bob) == []

        # Another person's device id named on her own press is not hers: it is not kept.
        forged = alice_web | {"X-Parley-Device": str(bob_ids["bob-phone"])}
        pressed = await server.client.post(own, json={}, headers=forged)
        assert pressed.status_code == 201, pressed.text
        [answer] = await answers(db, asked["id"])
        assert answer["meta"] == {"decision": "allow"}
        [event] = await trail(alice)
        assert (event["via"], event["device_id"]) == ("push_action", None)


async def test_always_allow_on_a_question_an_emailed_link_opened_says_so(
    server: Server, db: Database
) -> None:
    person, agent = Actor(server, "alice"), Actor(server, "alice", "laptop-cc")
    web = await cookie_headers(server, "alice")
    by_link = await agent.ok("POST", PATH, json=write_call("/w/linked.txt"))
    in_page = await agent.ok("POST", PATH, json=write_call("/w/page.txt"))
    for asked, extra in ((by_link, {"X-Parley-Via": "email_link"}), (in_page, {})):
        pressed = await server.client.post(
            f"/api/alice/approval-rules/from-question/{asked['id']}", json={}, headers=web | extra
        )
        assert pressed.status_code == 201, pressed.text
    events = {e["question_id"]: e for e in await trail(person)}
    assert (events[by_link["id"]]["via"], events[by_link["id"]]["decision"]) == (
        "email_link",
        "allow",
    )
    assert events[in_page["id"]]["via"] == "web"
    assert all(e["device_id"] is None and e["session_id"] is not None for e in events.values())
    assert len(await rules_table(db)) == 2
