"""The SQL of permission requests: the row that ties an agent's tool call (Claude Code's
`tool_use_id`) to the question asking the person about it.

The row is claimed inside the asking transaction, before the question is posted: of two
requests for the same call at once, PostgreSQL makes the second wait on the first's key and
then find it taken, so one call is asked about once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg

from parley.db import Database, retry_on_reconnect

_COLUMNS = "agent, tool_use_id, question_id, tool_name, machine, session_id, cwd, rule_id"


@dataclass(slots=True)
class Request:
    agent: str
    tool_use_id: str
    question_id: int
    tool_name: str
    machine: str
    session_id: str
    cwd: str
    rule_id: int | None  # the ask rule that asked, if one did


def _request(row: Any) -> Request:
    return Request(**dict(row))


async def claim(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    agent: str,
    tool_use_id: str,
    tool_name: str,
    machine: str,
    session_id: str,
    cwd: str,
    rule_id: int | None,
) -> bool:
    """Claim the call for this transaction; False if another (committed) request has it."""
    claimed = await conn.fetchval(
        """INSERT INTO permission_requests (user_id, agent, tool_use_id, tool_name, machine,
            session_id, cwd, rule_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
        ON CONFLICT (user_id, agent, tool_use_id) DO NOTHING RETURNING true""",
        user_id,
        agent,
        tool_use_id,
        tool_name,
        machine,
        session_id,
        cwd,
        rule_id,
    )
    return bool(claimed)


async def set_question(
    conn: asyncpg.Connection, *, user_id: str, agent: str, tool_use_id: str, question_id: int
) -> None:
    await conn.execute(
        """UPDATE permission_requests SET question_id = $4
        WHERE user_id = $1 AND agent = $2 AND tool_use_id = $3""",
        user_id,
        agent,
        tool_use_id,
        question_id,
    )


@retry_on_reconnect
async def find(db: Database, *, user_id: str, agent: str, tool_use_id: str) -> Request | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""SELECT {_COLUMNS} FROM permission_requests
            WHERE user_id = $1 AND agent = $2 AND tool_use_id = $3 AND question_id IS NOT NULL""",
            user_id,
            agent,
            tool_use_id,
        )
    return None if row is None else _request(row)


@retry_on_reconnect
async def by_question(db: Database, *, user_id: str, question_id: int) -> Request | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""SELECT {_COLUMNS} FROM permission_requests
            WHERE user_id = $1 AND question_id = $2""",
            user_id,
            question_id,
        )
    return None if row is None else _request(row)
