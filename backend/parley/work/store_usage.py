"""The statements of `work_usage`: the model tokens a person's work sessions used, per
conversation (`usage` reads them from the relay's responses). Both name the person: on a
cluster, one node's statement.
"""

from __future__ import annotations

import asyncpg

# One response's tokens onto the person's row. No clock in DO UPDATE (Citus would not run
# it on the person's node, specs/scale.md): the new row's own updated_at is the time.
_ADD = """
INSERT INTO work_usage (user_id, conversation_id, input_tokens, output_tokens,
    cache_creation_input_tokens, cache_read_input_tokens, requests)
VALUES ($1, $2, $3, $4, $5, $6, 1)
ON CONFLICT (user_id, conversation_id) DO UPDATE SET
    input_tokens = work_usage.input_tokens + EXCLUDED.input_tokens,
    output_tokens = work_usage.output_tokens + EXCLUDED.output_tokens,
    cache_creation_input_tokens = work_usage.cache_creation_input_tokens
        + EXCLUDED.cache_creation_input_tokens,
    cache_read_input_tokens = work_usage.cache_read_input_tokens
        + EXCLUDED.cache_read_input_tokens,
    requests = work_usage.requests + 1,
    updated_at = EXCLUDED.updated_at
"""

# The person's rows, with their conversations' titles (on their node: both by user_id).
_OF_PERSON = """
SELECT u.conversation_id, c.title, u.input_tokens, u.output_tokens,
    u.cache_creation_input_tokens, u.cache_read_input_tokens, u.requests,
    u.updated_at
FROM work_usage u
LEFT JOIN conversations c ON c.id = u.conversation_id AND c.user_id = u.user_id
WHERE u.user_id = $1
ORDER BY u.updated_at DESC, u.conversation_id DESC
"""


async def add(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    input_tokens: int,
    output_tokens: int,
    cache_creation_input_tokens: int,
    cache_read_input_tokens: int,
) -> None:
    """Add one response's tokens (and one request) to the person's row for the conversation."""
    await conn.execute(
        _ADD,
        user_id,
        conversation_id,
        input_tokens,
        output_tokens,
        cache_creation_input_tokens,
        cache_read_input_tokens,
    )


async def of_person(conn: asyncpg.Connection, *, user_id: str) -> list[asyncpg.Record]:
    """The person's rows, the most recent first, each with its conversation's `title` (None
    once the conversation is deleted)."""
    return await conn.fetch(_OF_PERSON, user_id)
