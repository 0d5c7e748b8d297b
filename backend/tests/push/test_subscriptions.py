"""Devices, preferences and mutes over REST: what the service worker and settings UI use."""

from __future__ import annotations

from typing import Any

from parley.db import Database
from tests.conftest import snapshot
from tests.push.fake_push import Device, FakePushService
from tests.runs.helpers import Actor, error_code


async def test_a_person_adds_lists_and_removes_devices(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        key = (await server.client.get("/api/push/vapid-public-key")).json()["public_key"]
        assert len(key) == 87  # a P-256 point, uncompressed, base64url
        alice, bob = Actor(server, "alice"), Actor(server, "bob")
        phone = push_service.device("phone")
        made = await alice.ok("POST", "/push-subscriptions", 201, json=phone.subscription("Phone"))
        assert made["endpoint"] == phone.endpoint and made["label"] == "Phone"
        # The browser subscribing again renews the same device.
        again = await alice.ok("POST", "/push-subscriptions", 200, json=phone.subscription())
        assert again["id"] == made["id"] and again["label"] == "Phone"
        listed = await alice.ok("GET", "/push-subscriptions")
        assert [d["id"] for d in listed] == [made["id"]]
        # Another person neither sees nor removes it; an agent's token manages no devices.
        assert await bob.ok("GET", "/push-subscriptions") == []
        gone = await bob.call("DELETE", f"/push-subscriptions/{made['id']}")
        assert gone.status_code == 404
        agent = Actor(server, "alice", "planner")
        assert (await agent.call("GET", "/push-subscriptions")).status_code == 403
        other = await bob.call("GET", "/../alice/push-subscriptions")
        assert other.status_code in (403, 404)
        cross = await server.client.get(
            "/api/alice/push-subscriptions", headers=server.headers("bob")
        )
        assert cross.status_code == 403

        removed = await alice.call("DELETE", f"/push-subscriptions/{made['id']}")
        assert removed.status_code == 204
        assert await alice.ok("GET", "/push-subscriptions") == []


async def test_an_endpoint_off_the_push_services_or_bad_keys_is_refused(
    push_server: Any, push_service: FakePushService, db: Database
) -> None:
    async with push_server() as server:
        alice = Actor(server, "alice")
        good = push_service.device("phone").subscription()
        before = await snapshot(db)
        for endpoint in (
            "http://169.254.169.254/latest/meta-data",
            "https://internal.example.com/push",
            "ftp://127.0.0.1/push",
            "http://user:pw@127.0.0.1/push",
        ):
            refused = await alice.call(
                "POST", "/push-subscriptions", json={**good, "endpoint": endpoint}
            )
            assert refused.status_code == 422, endpoint
            assert error_code(refused) == "push_service_not_allowed"
        bad_keys: list[dict[str, Any]] = [
            {"p256dh": "AAAA", "auth": good["keys"]["auth"]},
            {"p256dh": good["keys"]["p256dh"], "auth": "AAAA"},
            {"p256dh": "!!!", "auth": "???"},
        ]
        for keys in bad_keys:
            refused = await alice.call("POST", "/push-subscriptions", json={**good, "keys": keys})
            assert refused.status_code == 422
        assert (await alice.call("POST", "/push-subscriptions", json={})).status_code == 422
        assert await snapshot(db) == before
        assert await alice.ok("GET", "/push-subscriptions") == []


async def test_default_service_hosts_are_the_browsers_push_services(
    make_server: Any, db: Database
) -> None:
    async with make_server() as server:
        alice = Actor(server, "alice")
        sub = Device("x", "https://fcm.googleapis.com/fcm/send").subscription()
        sub["endpoint"] = "https://fcm.googleapis.com/fcm/send/abc"
        await alice.ok("POST", "/push-subscriptions", 201, json=sub)
        sub["endpoint"] = "https://wns2-by3p.notify.windows.com/w/?token=abc"
        await alice.ok("POST", "/push-subscriptions", 201, json=sub)
        sub["endpoint"] = "http://127.0.0.1:9/push"  # loopback only when a test allows it
        assert (await alice.call("POST", "/push-subscriptions", json=sub)).status_code == 422


async def test_preferences_and_mutes(push_server: Any, db: Database) -> None:
    async with push_server() as server:
        alice, bob = Actor(server, "alice"), Actor(server, "bob")
        prefs = await alice.ok("GET", "/notification-preferences")
        assert prefs == {
            "question": True,
            "run_failed": True,
            "message": False,
            "email_reminders": True,
            "muted_conversations": [],
            "email_available": False,  # no mail server here: the UI says so
        }
        changed = await alice.ok("PATCH", "/notification-preferences", json={"message": True})
        assert changed["message"] is True and changed["question"] is True
        assert changed["email_available"] is False
        assert (
            await alice.call("PATCH", "/notification-preferences", json={"nonsense": True})
        ).status_code == 422
        chat = await alice.ok("POST", "/conversations", 201, json={})
        muted = await alice.ok("PUT", f"/conversations/{chat['id']}/mute", json={"muted": True})
        assert muted == {"conversation_id": chat["id"], "muted": True}
        prefs = await alice.ok("GET", "/notification-preferences")
        assert prefs["muted_conversations"] == [chat["id"]]
        refused = await bob.call("PUT", f"/conversations/{chat['id']}/mute", json={"muted": True})
        assert refused.status_code == 404
        await alice.ok("PUT", f"/conversations/{chat['id']}/mute", json={"muted": False})
        assert (await alice.ok("GET", "/notification-preferences"))["muted_conversations"] == []


async def test_preferences_say_email_can_be_sent_once_a_mail_server_is_configured(
    push_server: Any, db: Database
) -> None:
    async with push_server(PARLEY_SMTP_URL="smtp://127.0.0.1:9") as server:
        alice = Actor(server, "alice")
        assert (await alice.ok("GET", "/notification-preferences"))["email_available"] is True
        changed = await alice.ok(
            "PATCH", "/notification-preferences", json={"email_reminders": False}
        )
        assert changed["email_available"] is True and changed["email_reminders"] is False
