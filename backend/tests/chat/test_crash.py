"""A server killed mid-turn: the user's message survives and the claim expires."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx
import sqlalchemy as sa

from tests.conftest import SECRET, eventually, free_port, token_for

PARLEY = str(Path(sys.executable).with_name("parley"))


async def _start_server(database_url: str, **env: str) -> tuple[asyncio.subprocess.Process, str]:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "serve",
        "--port",
        str(port),
        "--log-level",
        "warning",
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "PARLEY_AUTH_SECRET": SECRET,
            "PARLEY_MODEL": "offline",
            "PARLEY_RATE_LIMIT_PER_MINUTE": "0",
            **env,
        },
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    async def up() -> bool:
        try:
            async with httpx.AsyncClient() as client:
                return (await client.get(f"{base}/api/health")).status_code == 200
        except httpx.HTTPError:
            return False

    await eventually(up, within=30)
    return process, base


async def test_a_turn_killed_mid_way_does_not_lock_the_conversation(make_server, migrated, db):
    headers = {"Authorization": f"Bearer {token_for('alice')}"}
    process, base = await _start_server(migrated, PARLEY_MODEL_DELAY="60", PARLEY_TURN_TIMEOUT="3")
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=90) as client:
        pending = asyncio.create_task(
            client.post("/api/alice/chat", json={"message": "add a task to survive"})
        )

        async def user_message_stored() -> bool:
            async with db.session() as session:
                return bool(await session.scalar(sa.text("SELECT count(*) FROM messages")))

        await eventually(user_message_stored)
        os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        pending.cancel()

    async with db.session() as session:
        conversation_id, content = (
            await session.execute(sa.text("SELECT conversation_id, content FROM messages"))
        ).one()
    assert content == "add a task to survive"

    async with make_server(PARLEY_TURN_TIMEOUT=3) as server:
        blocked = await server.chat("alice", "list my tasks", conversation_id)
        assert blocked.status_code == 409  # the dead turn's claim is still fresh

        async def claim_expired() -> bool:
            response = await server.chat("alice", "list my tasks", conversation_id)
            return response.status_code == 200

        await eventually(claim_expired, within=10)
        listed = await server.client.get(
            f"/api/alice/conversations/{conversation_id}/messages", headers=headers
        )
    contents = [m["content"] for m in listed.json()]
    assert contents[0] == "add a task to survive"
    assert contents[-2:] == ["list my tasks", "You have no tasks yet."]
