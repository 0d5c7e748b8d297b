"""A work session's shown state (status, cost, a pending permission request) reaches the
person's event stream as a change of its conversation, so the UI follows it without polling."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from httpx_sse import ServerSentEvent as Event

from parley.db import Database
from tests.conftest import Server
from tests.realtime.test_person_events import person_stream
from tests.work.conftest import new_work


async def next_conversation(stream: AsyncIterator[Event]) -> dict[str, Any]:
    """The next `conversation` event's conversation, within 10 s."""

    async def find() -> dict[str, Any]:
        async for event in stream:
            if event.event == "conversation":
                conversation: dict[str, Any] = event.json()["conversation"]
                return conversation
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(find(), 10)


async def test_each_state_change_is_sent_with_the_conversation(
    server: Server, db: Database
) -> None:
    async with person_stream(server.base_url) as stream:
        conversation_id = await new_work(server, "alice")
        assert (await next_conversation(stream))["work"]["status"] == "idle"  # created
        async with db.connection() as conn:
            await conn.execute(
                """INSERT INTO work_sessions (conversation_id, user_id, workspace, status)
                VALUES ($1, 'alice', '/w/alice', 'working')""",
                conversation_id,
            )
        work = (await next_conversation(stream))["work"]
        assert (work["status"], work["workspace"]) == ("working", "/w/alice")

        async with db.connection() as conn:
            await conn.execute(
                """UPDATE work_sessions SET status = 'idle', pending = '{"question_id": 77}'
                WHERE conversation_id = $1""",
                conversation_id,
            )
        work = (await next_conversation(stream))["work"]
        assert (work["status"], work["pending_question_id"]) == ("idle", 77)

        async with db.connection() as conn:
            await conn.execute(
                "UPDATE work_sessions SET cost_usd = 0.25 WHERE conversation_id = $1",
                conversation_id,
            )
        assert (await next_conversation(stream))["work"]["cost_usd"] == 0.25

        # A lease heartbeat shows nothing new: the next event is the rename that follows it.
        async with db.connection() as conn:
            await conn.execute(
                """UPDATE work_sessions SET lease_expires_at = now() + interval '1 minute'
                WHERE conversation_id = $1""",
                conversation_id,
            )
        renamed = await server.client.patch(
            f"/api/alice/conversations/{conversation_id}",
            json={"title": "Heartbeats are quiet"},
            headers=server.headers("alice"),
        )
        assert renamed.status_code == 200, renamed.text
        assert (await next_conversation(stream))["title"] == "Heartbeats are quiet"
