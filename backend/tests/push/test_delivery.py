"""Questions reach the person's devices: one encrypted push per device, however many
instances run; a closing push when the question is answered; dead devices dropped; a
failing push service retried without holding anything else up."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from parley.db import Database
from parley.push import outbox
from tests.conftest import eventually
from tests.push.fake_push import FakePushService
from tests.runs.helpers import Actor


async def subscribe(person: Actor, service: FakePushService, *names: str) -> dict[str, int]:
    ids = {}
    for name in names:
        made = await person.ok(
            "POST", "/push-subscriptions", 201, json=service.device(name).subscription(name)
        )
        ids[name] = made["id"]
    return ids


async def test_a_question_pushes_once_per_device_even_with_two_instances(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as one, push_server() as two:
        person = Actor(one, "alice")
        await subscribe(person, push_service, "phone", "laptop")
        agent = Actor(two, "alice", "planner")
        question = await agent.ask("/inbox/messages", "Should I deploy the release to production?")

        def both() -> bool:
            return all(push_service.delivered(d) for d in ("phone", "laptop"))

        await push_service.wait_for(both)
        for device in ("phone", "laptop"):
            [push] = push_service.delivered(device)
            assert push["kind"] == "question" and push["question_id"] == question
            assert push["tag"] == f"parley-q-{question}"
            assert push["title"] == "planner asks"
            assert push["body"] == "Should I deploy the release to production?"
            assert push["url"].endswith(f"?question={question}")
            assert [a["action"] for a in push["actions"]] == ["yes", "no"]
            assert push["answer"]["path"] == f"/api/alice/questions/{question}/answer"
        # Each push carried the server's VAPID key and its encoding.
        key = (await one.client.get("/api/push/vapid-public-key")).json()["public_key"]
        for received in push_service.received:
            assert received.headers["content-encoding"] == "aes128gcm"
            assert received.headers["authorization"].endswith(f"k={key}")

        # Exactly once: both senders have looked again since, and nothing more came.
        await _both_senders_idle(db)
        assert len(push_service.received) == 2

        # Answered from anywhere: every device gets the closing push, same tag.
        await person.ok("POST", f"/questions/{question}/answer", 201, json={"text": "yes"})

        def closed() -> bool:
            return all(len(push_service.delivered(d)) == 2 for d in ("phone", "laptop"))

        await push_service.wait_for(closed)
        for device in ("phone", "laptop"):
            closing = push_service.delivered(device)[1]
            assert closing["kind"] == "question_closed"
            assert closing["tag"] == f"parley-q-{question}" and closing["status"] == "answered"
        await _both_senders_idle(db)
        assert len(push_service.received) == 4


async def _both_senders_idle(db: Database) -> None:
    """Nothing left pending or leased: every instance's sender has finished its claims."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        async with db.connection() as conn:
            busy = await conn.fetchval("SELECT count(*) FROM push_outbox WHERE status = 'pending'")
        if busy == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("pushes still pending")


async def test_a_gone_device_is_dropped_and_the_others_still_get_it(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        ids = await subscribe(person, push_service, "phone", "old-tablet")
        push_service.answer_with("old-tablet", 410)
        question = await agent.ask("/inbox/messages", "Which branch?")
        await push_service.wait_for(
            lambda: push_service.delivered("phone") and push_service.arrived.get("old-tablet")
        )

        async def listed() -> list[int]:
            return [d["id"] for d in await person.ok("GET", "/push-subscriptions")]

        deadline = time.monotonic() + 20
        while await listed() != [ids["phone"]]:
            assert time.monotonic() < deadline, await listed()
            await asyncio.sleep(0.05)
        [push] = push_service.delivered("phone")
        assert push["question_id"] == question and push["actions"] == []
        # The dropped device gets nothing more: not the closing push either.
        await person.ok("POST", f"/questions/{question}/answer", 201, json={"text": "main"})
        await push_service.wait_for(lambda: len(push_service.delivered("phone")) == 2)
        await _both_senders_idle(db)
        assert push_service.arrived["old-tablet"] == 1


async def test_a_failing_push_service_is_retried_and_never_holds_up_the_question(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        await subscribe(person, push_service, "phone")
        push_service.answer_with("phone", 500, 503, 201)
        push_service.retry_after = "0"
        release = push_service.held["phone"] = asyncio.Event()
        # The push service hangs on the first push: the agent's question is stored and
        # readable all the same, and an answer reaches the agent.
        question = await agent.ask("/inbox/messages", "Tabs or spaces?")
        await push_service.wait_for(lambda: push_service.arrived.get("phone") == 1)
        state = await agent.ok("GET", f"/questions/{question}")
        assert state["status"] == "open"
        assert [q["question"]["id"] for q in await person.ok("GET", "/questions")] == [question]
        release.set()
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        assert [r.status for r in push_service.received] == [500, 503, 201]
        [push] = push_service.delivered("phone")
        assert push["question_id"] == question


async def test_a_push_service_that_keeps_failing_is_given_up_after_the_bound(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server(PARLEY_PUSH_MAX_ATTEMPTS=3) as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        await subscribe(person, push_service, "phone")
        push_service.answer_with("phone", *[500] * 10)
        await agent.ask("/inbox/messages", "Still there?")
        await _both_senders_idle(db)
        assert [r.status for r in push_service.received] == [500, 500, 500]
        async with db.connection() as conn:
            row = await conn.fetchrow("SELECT status, attempts, last_error FROM push_outbox")
        assert row["status"] == "failed" and row["attempts"] == 3
        assert row["last_error"].startswith("HTTP 500")
        # The device itself stays: a push service's bad hour is not a dead subscription.
        assert len(await person.ok("GET", "/push-subscriptions")) == 1


async def test_what_notifies_follows_the_persons_choices(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        await subscribe(person, push_service, "phone")
        # Inbox messages are off by default; a muted conversation says nothing.
        await agent.post("/inbox/messages", "FYI: the build is green")
        run = await agent.start_run("migrate")
        conversation = run["conversation_id"]
        await person.ok("PUT", f"/conversations/{conversation}/mute", json={"muted": True})
        muted = await agent.ask(f"/runs/{run['id']}/messages", "Drop the old table?")
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT count(*) FROM push_outbox") == 0
        await person.ok("PATCH", "/notification-preferences", json={"message": True})
        await person.ok("PUT", f"/conversations/{conversation}/mute", json={"muted": False})
        posted = await agent.post("/inbox/messages", "Deploy finished")
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        [push] = push_service.delivered("phone")
        assert push["kind"] == "message" and push["tag"] == f"parley-m-{posted['id']}"
        assert push["body"] == "Deploy finished"
        await _both_senders_idle(db)
        assert muted and len(push_service.received) == 1


async def test_a_chat_turn_costs_the_push_sender_nothing_and_a_question_wakes_it(
    push_server: Any, push_service: FakePushService
) -> None:
    """Messages and person events that notify nobody never wake the sender (it used to
    make two claims per chat turn); a new outbox row does, from the reader's next poll."""
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        await subscribe(person, push_service, "phone")
        sender, reader = server.app.services.push.sender, server.app.services.notifier.reader
        await _polled_twice_more(reader)  # the sender is idle, its start-up round done
        rounds = sender.counters.rounds
        for text in ("add a task to buy milk", "list my tasks", "hello"):
            assert (await server.chat("alice", text)).status_code == 200
        await _polled_twice_more(reader)  # any wake from those rows was handed out by now
        assert sender.counters.rounds == rounds
        run = await agent.start_run("deploy")
        await agent.ask(f"/runs/{run['id']}/messages", "Ship it?")
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        assert sender.counters.rounds > rounds


async def _polled_twice_more(reader: Any) -> None:
    target = reader.counters.polls + 2

    async def polled() -> bool:
        return bool(reader.counters.polls >= target)

    await eventually(polled)


async def test_a_notification_button_answers_with_the_persons_session_and_names_its_device(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "planner")
        ids = await subscribe(person, push_service, "phone")
        question = await agent.ask("/inbox/messages", "Should I merge the PR?")
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        [push] = push_service.delivered("phone")
        # What the service worker does for "Yes": the push's own path and body, with the
        # person's cookie session (from the web UI's origin) and its device id.
        login = await server.client.post("/api/auth/dev-login", json={"user_id": "alice"})
        cookie = login.cookies["parley_session"]
        server.client.cookies.clear()
        headers = {
            "Cookie": f"parley_session={cookie}",
            "Origin": server.settings.web_origin,
            "X-Parley-Device": str(ids["phone"]),
        }
        # Without the session it is refused, like any answer.
        anonymous = await server.client.post(push["answer"]["path"], json=push["answer"]["yes"])
        assert anonymous.status_code == 401
        answered = await server.client.post(
            push["answer"]["path"], json=push["answer"]["yes"], headers=headers
        )
        assert answered.status_code == 201, answered.text
        async with db.connection() as conn:
            meta = await conn.fetchval(
                "SELECT meta FROM messages WHERE reply_to = $1 AND kind = 'answer'", question
            )
        assert meta == {"device": ids["phone"]}
        state = await agent.ok("GET", f"/questions/{question}")
        assert state["status"] == "answered" and state["answer"]["author"] == "alice"
        # Pressed again on another device: the question takes no second answer.
        again = await server.client.post(
            push["answer"]["path"], json=push["answer"]["no"], headers=headers
        )
        assert again.status_code == 409


async def test_a_failed_run_notifies_and_a_completed_one_does_not(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        person, agent = Actor(server, "alice"), Actor(server, "alice", "builder")
        await subscribe(person, push_service, "phone")
        fine = await agent.start_run("lint")
        await agent.ok("POST", f"/runs/{fine['id']}/finish", json={"status": "completed"})
        broken = await agent.start_run("deploy")
        await agent.ok(
            "POST",
            f"/runs/{broken['id']}/finish",
            json={"status": "failed", "summary": "migrations did not apply"},
        )
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        [push] = push_service.delivered("phone")
        assert push["kind"] == "run_failed" and push["tag"] == f"parley-run-{broken['id']}"
        assert push["title"] == "builder's run failed" and push["actions"] == []
        await _both_senders_idle(db)
        assert len(push_service.received) == 1


async def test_a_push_outlasting_its_lease_is_not_taken_over_while_its_sender_lives(
    push_server: Any, push_service: FakePushService, db: Database, monkeypatch: Any
) -> None:
    """A slow push service (or a big batch) can keep a claimed row longer than its lease:
    the sender renews the lease while it is still sending, so the other instance does not
    take the row over and send the push a second time."""
    monkeypatch.setattr(outbox, "LEASE_SECONDS", 1.0)
    async with push_server() as one, push_server() as two:
        person, agent = Actor(one, "alice"), Actor(two, "alice", "planner")
        await subscribe(person, push_service, "phone")
        release = push_service.held["phone"] = asyncio.Event()
        await agent.ask("/inbox/messages", "Merge the branch?")
        try:
            await push_service.wait_for(lambda: push_service.arrived.get("phone") == 1)
            async with db.connection() as conn:
                first = await conn.fetchval("SELECT lease_until FROM push_outbox")
            # Wait until three leases' worth of time has passed the first lease's end, seen
            # as the row's lease moving on; it must still be the first attempt, never re-sent.
            deadline = time.monotonic() + 20
            while True:
                async with db.connection() as conn:
                    row = await conn.fetchrow("SELECT lease_until, attempts FROM push_outbox")
                assert row["attempts"] == 1 and push_service.arrived["phone"] == 1
                if (row["lease_until"] - first).total_seconds() >= 3.0:
                    break
                assert time.monotonic() < deadline, "the lease was never renewed"
                await asyncio.sleep(0.1)
        finally:  # a held push keeps its server from stopping
            release.set()
        await push_service.wait_for(lambda: push_service.delivered("phone"))
        await _both_senders_idle(db)
        assert push_service.arrived["phone"] == 1 and len(push_service.received) == 1
