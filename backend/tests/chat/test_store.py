"""Starting a turn is safe to repeat: a retry after a lost reply stores nothing twice."""

from __future__ import annotations

import pytest

from parley.chat import store
from parley.errors import TurnInProgress
from parley.messages import store as message_store
from parley.models import Role


async def _start(conn, turn_id: str, conversation_id: int | None, content: str = "hello"):
    return await store.start(
        conn,
        turn_id=turn_id,
        user_id="alice",
        conversation_id=conversation_id,
        title="t",
        ttl_seconds=60,
        content=content,
        history_limit=50,
    )


async def _count(conn) -> tuple[int, int]:
    conversations = await conn.fetchval("SELECT count(*) FROM conversations")
    messages = await conn.fetchval("SELECT count(*) FROM messages")
    return conversations, messages


async def test_repeating_a_start_in_a_new_conversation_stores_it_once(db):
    async with db.connection() as conn:
        first = await _start(conn, "turn-1", None)
        again = await _start(conn, "turn-1", None)
        assert [m.id for m in again] == [m.id for m in first]
        assert await _count(conn) == (1, 1)


async def test_repeating_a_start_in_a_conversation_stores_it_once(db):
    async with db.connection() as conn:
        [opening] = await _start(conn, "turn-1", None)
        conversation_id = opening.conversation_id
        await store.finish(
            conn,
            user_id="alice",
            conversation_id=conversation_id,
            turn_id="turn-1",
            content="hi",
            tool_calls=None,
            error=False,
        )
        first = await _start(conn, "turn-2", conversation_id, "again")
        again = await _start(conn, "turn-2", conversation_id, "again")
        assert [m.content for m in again] == [m.content for m in first] == ["hello", "hi", "again"]
        assert await _count(conn) == (1, 3)
        with pytest.raises(TurnInProgress):  # another turn still finds the claim taken
            await _start(conn, "turn-3", conversation_id, "third")
        assert await _count(conn) == (1, 3)


async def test_a_repeated_start_still_ends_its_history_at_the_persons_message(db):
    async with db.connection() as conn:
        first = await _start(conn, "turn-1", None)
        conversation_id = first[-1].conversation_id
        async with conn.transaction():  # an agent writes in between
            await message_store.append(
                conn,
                conversation_id=conversation_id,
                user_id="alice",
                role=Role.agent,
                content="status: working",
                author="helper",
            )
        again = await _start(conn, "turn-1", conversation_id)
        assert [(m.role, m.content) for m in again] == [("user", "hello")]
