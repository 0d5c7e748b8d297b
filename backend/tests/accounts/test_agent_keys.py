"""Agent keys: made by the person, shown once, acting as the named agent and nothing more."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from tests.accounts.helpers import bearer, browser, make_key, signup


async def test_a_key_writes_as_its_agent_and_cannot_act_as_the_person(make_server, db):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        await signup(web, "alice")
        key = await make_key(web, "alice", agent="planner")
        assert set(key) == {
            "id",
            "agent",
            "prefix",
            "secret",
            "created_at",
            "expires_at",
            "last_used_at",
        }
        assert key["secret"].startswith(key["prefix"] + "_") and key["prefix"].startswith(
            "pk_parley_"
        )
        agent = bearer(key["secret"])
        me = await server.client.get("/api/auth/me", headers=agent)
        assert me.json() == {
            "user_id": "alice",
            "email": None,
            "is_admin": False,
            "agent": "planner",
            "via": "bearer",
            "email_verified": False,
            "sso_linked": False,
        }
        posted = await server.client.post(
            "/api/alice/inbox/messages", json={"text": "plan ready"}, headers=agent
        )
        assert posted.status_code == 201, posted.text
        async with db.connection() as conn:
            row = await conn.fetchrow(
                "SELECT role, author FROM messages WHERE content = 'plan ready'"
            )
            stored = await conn.fetchval("SELECT secret_hash FROM agent_keys")
        assert (row["role"], row["author"]) == ("agent", "planner")
        assert key["secret"].encode() not in stored and len(stored) == 32
        # the agent may not act as its person, nor manage credentials, nor reach another path
        chat = await server.client.post(
            "/api/alice/chat", json={"conversation_id": None, "message": "hi"}, headers=agent
        )
        assert chat.status_code == 403
        for method, path, body in (
            ("POST", "/api/alice/agent-keys", {"agent": "more"}),
            ("GET", "/api/alice/agent-keys", None),
            ("DELETE", f"/api/alice/agent-keys/{key['id']}", None),
            ("GET", "/api/alice/sessions", None),
            ("POST", "/api/auth/password", {"current_password": "x", "new_password": "y" * 9}),
            ("POST", "/api/admin/invites", {}),
        ):
            r = await server.client.request(method, path, json=body, headers=agent)
            assert r.status_code == 403 and r.json()["error"]["code"] == "agent_not_allowed", path
        assert (await server.client.get("/api/bob/tasks", headers=agent)).status_code == 403
        listed = (await web.get("/api/alice/agent-keys")).json()
        assert len(listed) == 1 and "secret" not in listed[0]
        assert listed[0]["last_used_at"] is not None


async def test_an_expired_key_is_refused_and_bad_expiries_are_422(make_server):
    async with make_server(PARLEY_SIGNUP="open") as server, browser(server.base_url) as web:
        await signup(web, "alice")
        soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
        r = await web.post("/api/alice/agent-keys", json={"agent": "brief", "expires_at": soon})
        assert r.status_code == 201, r.text
        secret = r.json()["secret"]
        for bad in ({"agent": "x", "expires_at": "2000-01-01T00:00:00Z"}, {"agent": "a b"}, {}):
            refused = await web.post("/api/alice/agent-keys", json=bad)
            assert refused.status_code == 422, bad
        deadline = datetime.now(UTC) + timedelta(seconds=5)
        while (
            await server.client.get("/api/alice/tasks", headers=bearer(secret))
        ).status_code == 200:
            assert datetime.now(UTC) < deadline
            await asyncio.sleep(0.05)
        r = await server.client.get("/api/alice/tasks", headers=bearer(secret))
        assert r.status_code == 401 and "expired" in r.json()["error"]["message"]
