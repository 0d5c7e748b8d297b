"""A server killed mid-turn: the user's message survives and the claim expires."""

from __future__ import annotations

import asyncio
import os
import signal

import httpx

from tests.conftest import eventually, spawn_server, token_for


async def test_a_turn_killed_mid_way_does_not_lock_the_conversation(make_server, migrated, db):
    headers = {"Authorization": f"Bearer {token_for('alice')}"}
    process, base = await spawn_server(migrated, PARLEY_MODEL_DELAY="60", PARLEY_CLAIM_SECONDS="3")
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=90) as client:
        pending = asyncio.create_task(
            client.post("/api/alice/chat", json={"message": "add a task to survive"})
        )

        async def user_message_stored() -> bool:
            async with db.connection() as conn:
                return bool(await conn.fetchval("SELECT count(*) FROM messages"))

        await eventually(user_message_stored)
        os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        pending.cancel()

    async with db.connection() as conn:
        rows = await conn.fetch("SELECT conversation_id, content FROM messages")
        [(conversation_id, content)] = rows
        assert content == "add a task to survive"
        # The dead turn's claim is held a while yet, as if it died just now: a loaded machine
        # may take longer than the claim's 3 s to start the next server.
        held = await conn.execute(
            "UPDATE conversations SET turn_expires_at = now() + interval '60 seconds'"
            " WHERE id = $1 AND turn_id IS NOT NULL",
            conversation_id,
        )
    assert held == "UPDATE 1"  # the dead turn's claim was left, not released

    async with make_server(PARLEY_CLAIM_SECONDS=3) as server:
        blocked = await server.chat("alice", "list my tasks", conversation_id)
        assert blocked.status_code == 409  # the dead turn's claim is still fresh
        async with db.connection() as conn:  # the minute passes
            await conn.execute(
                "UPDATE conversations SET turn_expires_at = now() - interval '1 second'"
                " WHERE id = $1",
                conversation_id,
            )

        async def claim_expired() -> bool:
            response = await server.chat("alice", "list my tasks", conversation_id)
            return response.status_code == 200

        await eventually(claim_expired, within=30)
        listed = await server.client.get(
            f"/api/alice/conversations/{conversation_id}/messages", headers=headers
        )
    contents = [m["content"] for m in listed.json()]
    assert contents[0] == "add a task to survive"
    assert "interrupted" in contents[1]  # the dead turn was answered when its claim was taken
    assert contents[-2:] == ["list my tasks", "You have no tasks yet."]
