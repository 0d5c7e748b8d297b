"""The one store of `turn_tool_calls`, the turn's in-flight record of its tool calls
(`ledger` says what it is for). Each statement names the owner's user id, so on a Citus
cluster it runs on the one node holding the person's rows."""

from __future__ import annotations

from typing import Any

import asyncpg

# Both writes commit without waiting for the disk (synchronous_commit off, for that transaction
# only): PostgreSQL flushes its log in order, so the next commit that does wait — the tool's
# own effect, or at the latest the turn's finish, before anyone is answered — makes them
# durable too. A database crash in between loses only records of calls nobody was told about.
# Each is one function (parley/sql/record_call.sql, call_result.sql), run on the person's node
# on a cluster; records of earlier prompts go as a new one is written.
_BEGIN = "SELECT parley_record_call($2, $1, $3, $4, $5, $6, $7, $8)"
_DONE = "SELECT parley_call_result($3, $1, $2)"
# The same call made by an earlier try of this turn, not yet answered again in this one.
_EARLIER = """
SELECT id, result FROM turn_tool_calls AS earlier
WHERE user_id = $6 AND conversation_id = $1 AND prompt_id = $2 AND turn_id <> $3 AND tool = $4
  AND parameters = $5::jsonb AND replay_of IS NULL
  AND (result IS NULL OR jsonb_typeof(result) <> 'object' OR NOT result ? 'error')
  AND NOT EXISTS (SELECT 1 FROM turn_tool_calls
                  WHERE user_id = $6 AND turn_id = $3 AND replay_of = earlier.id)
ORDER BY id
LIMIT 1
"""


async def begin(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    turn_id: str,
    prompt_id: int,
    tool: str,
    arguments: dict[str, Any],
    result: Any = None,
    replay_of: int | None = None,
) -> int | None:
    """The new record's id; None when the turn no longer holds its claim (nothing written)."""
    record = await conn.fetchval(
        _BEGIN,
        conversation_id,
        user_id,
        turn_id,
        prompt_id,
        tool,
        arguments,
        result,
        replay_of,
    )
    return None if record is None else int(record)


async def done(conn: asyncpg.Connection, *, user_id: str, record: int, result: Any) -> None:
    await conn.execute(_DONE, record, result, user_id)


async def earlier(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    prompt_id: int,
    turn_id: str,
    tool: str,
    arguments: dict[str, Any],
) -> tuple[int, Any] | None:
    """The same call by an earlier try of this prompt (see `_EARLIER`): its id and result
    (None while it has none)."""
    row = await conn.fetchrow(
        _EARLIER, conversation_id, prompt_id, turn_id, tool, arguments, user_id
    )
    return None if row is None else (int(row["id"]), row["result"])
