"""Questions nobody answers: their default at the deadline (once, across instances and a
restart), a reminder push, then an email whose link opens the question once."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from parley.db import Database
from parley.questions import escalation
from parley.questions.expiry import expire_overdue
from tests.conftest import token_for
from tests.fakes.smtp import reminder_link, smtp_server
from tests.push.fake_push import FakePushService
from tests.push.test_delivery import subscribe
from tests.runs.helpers import Actor
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client

FAST = {"PARLEY_SWEEP_SECONDS": 0.2}


async def answers_to(db: Database, question: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT author, role::text, content, meta FROM messages WHERE reply_to = $1"
            " AND kind = 'answer'",
            question,
        )
    return [dict(r) for r in rows]


async def test_ask_user_on_timeout_deny_answers_no_once_with_two_instances(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server(**FAST) as one, push_server(**FAST) as two:
        await subscribe(Actor(one, "alice"), push_service, "phone")
        async with mcp_client(two.base_url, token_for("alice", agent="ops")) as client:
            bad = await client.call_tool("ask_user", {"question": "x?", "on_timeout": "maybe"})
            assert bad.is_error
            answer = data(
                await client.call_tool(
                    "ask_user",
                    {"question": "Delete the stale branch?", "timeout_s": 1, "on_timeout": "deny"},
                )
            )
        assert answer["status"] == "answered" and answer["answer"] == "no"
        assert answer["answered_by"] == "parley:timeout"
        question = answer["question_id"]
        [stored] = await answers_to(db, question)
        assert stored["author"] == "parley:timeout" and stored["meta"] == {"by": "timeout"}
        # The devices were told, and told again when the default answered it.
        await push_service.wait_for(lambda: len(push_service.delivered("phone")) == 2)
        opened, closed = push_service.delivered("phone")
        assert opened["tag"] == closed["tag"] == f"parley-q-{question}"
        assert closed["kind"] == "question_closed" and closed["status"] == "answered"
        # Every instance deciding again changes nothing: still one answer.
        await _race_deciders(db)
        assert len(await answers_to(db, question)) == 1


async def _race_deciders(db: Database, n: int = 4) -> None:
    """What every instance's sweeper does, `n` at once: decide whatever is overdue."""

    async def one() -> None:
        async with db.connection() as conn:
            await expire_overdue(conn)

    await asyncio.gather(*(one() for _ in range(n)))


async def test_overdue_defaults_are_decided_once_however_many_deciders_race(
    push_server: Any, db: Database
) -> None:
    async with push_server() as server:
        agent = Actor(server, "alice", "ops")
        asked = [await agent.ask("/inbox/messages", f"Step {i}?", timeout_s=0.5) for i in range(6)]
        for i, question in enumerate(asked):
            await escalation.escalate(
                db,
                user_id="alice",
                question_id=question,
                on_timeout="allow" if i % 2 else "deny",
                remind_after=None,
            )
        while True:
            async with db.connection() as conn:
                if await conn.fetchval("SELECT bool_and(timeout_at <= now()) FROM questions"):
                    break
            await asyncio.sleep(0.05)
        await _race_deciders(db, 6)
        for i, question in enumerate(asked):
            [answer] = await answers_to(db, question)
            assert answer["content"] == ("yes" if i % 2 else "no")


async def test_on_timeout_deny_survives_a_restart_and_is_applied_once(
    push_server: Any, db: Database
) -> None:
    async with push_server(**FAST) as first:
        agent = Actor(first, "alice", "ops")
        question = await agent.ask("/inbox/messages", "Force-push main?", timeout_s=1.5)
        await escalation.escalate(
            db, user_id="alice", question_id=question, on_timeout="deny", remind_after=None
        )
    # Nobody runs while the deadline passes.
    while True:
        async with db.connection() as conn:
            if await conn.fetchval(
                "SELECT timeout_at <= now() FROM questions WHERE message_id = $1", question
            ):
                break
        await asyncio.sleep(0.1)
    assert await answers_to(db, question) == []
    async with push_server(**FAST) as second, push_server(**FAST) as third:
        person = Actor(second, "alice")
        state = await person.ok("GET", f"/questions/{question}", params={"wait": 10})
        assert state["status"] == "answered"
        assert state["answer"]["author"] == "parley:timeout" and state["answer"]["content"] == "no"
        await _race_deciders(db)
        assert third and len(await answers_to(db, question)) == 1


async def test_a_reminder_push_then_an_email_whose_link_opens_the_question_once(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    with smtp_server() as (mailbox, port):
        async with push_server(PARLEY_SMTP_URL=f"smtp://127.0.0.1:{port}", **FAST) as server:
            async with db.connection() as conn:
                await conn.execute(
                    "INSERT INTO accounts (user_id, email, email_verified_at)"
                    " VALUES ('alice', 'alice@example.com', now())"
                )
            person = Actor(server, "alice")
            await subscribe(person, push_service, "phone")
            async with mcp_client(server.base_url, token_for("alice", agent="ops")) as client:
                asking = asyncio.create_task(
                    client.call_tool(
                        "ask_user",
                        {"question": "Rotate the API keys now?", "remind_after": 0.01},
                    )
                )
                await push_service.wait_for(lambda: len(push_service.delivered("phone")) == 2)
                first, reminder = push_service.delivered("phone")
                question = first["question_id"]
                assert reminder["tag"] == first["tag"] == f"parley-q-{question}"
                assert (
                    reminder["title"].startswith("Still waiting") and reminder["kind"] == "question"
                )

                body, path = await reminder_link(mailbox, to="alice@example.com")
                assert "Rotate the API keys now?" in body
                opened = await server.client.get(f"/api/{path}", follow_redirects=False)
                assert opened.status_code == 303
                assert opened.headers["location"].endswith(
                    f"/c/{first['url'].split('/c/')[1].split('?')[0]}?question={question}&via=email_link"
                )
                again = await server.client.get(f"/api/{path}", follow_redirects=False)
                assert again.status_code == 404  # single use
                # The link signed nobody in: answering still needs the person's credential.
                anonymous = await server.client.post(
                    f"/api/alice/questions/{question}/answer", json={"text": "yes"}
                )
                assert anonymous.status_code == 401
                await person.ok("POST", f"/questions/{question}/answer", 201, json={"text": "yes"})
                answer = data(await asyncio.wait_for(asking, 30))
                assert answer["answer"] == "yes" and answer["answered_by"] == "alice"
            await push_service.wait_for(lambda: len(push_service.delivered("phone")) == 3)
            assert push_service.delivered("phone")[2]["kind"] == "question_closed"
            assert len(mailbox.messages) == 1


async def test_a_reminder_email_goes_only_to_a_verified_address(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    """Anyone may type someone else's address into their own account: an unverified one gets
    the reminder push's next step taken, but no email and no link."""
    with smtp_server() as (mailbox, port):
        async with push_server(PARLEY_SMTP_URL=f"smtp://127.0.0.1:{port}", **FAST) as server:
            async with db.connection() as conn:
                await conn.execute(
                    "INSERT INTO accounts (user_id, email) VALUES ('mallory', 'bob@example.com')"
                )
            async with mcp_client(server.base_url, token_for("mallory", agent="ops")) as client:
                asking = asyncio.create_task(
                    client.call_tool("ask_user", {"question": "Ship it?", "remind_after": 0.01})
                )
                deadline = time.monotonic() + 30
                while True:
                    async with db.connection() as conn:
                        row = await conn.fetchrow(
                            "SELECT question_id, stage FROM question_escalations"
                            " WHERE user_id = 'mallory'"
                        )
                    if row is not None and row["stage"] == 2:
                        break
                    assert time.monotonic() < deadline, "the email step was never taken"
                    await asyncio.sleep(0.05)
                async with db.connection() as conn:
                    links = await conn.fetchval(
                        "SELECT count(*) FROM auth_challenges WHERE purpose = $1",
                        escalation.LINK_PURPOSE,
                    )
                # The link is made in the step's own transaction, so none now means no email.
                assert links == 0 and mailbox.messages == []
                asking.cancel()
