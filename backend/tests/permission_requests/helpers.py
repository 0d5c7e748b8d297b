"""Claude Code's PreToolUse events and the person answering them, for the permission
request tests."""

from __future__ import annotations

import uuid
from typing import Any

from parley.db import Database


def write_call(path: str, content: str = "hello\n", **extra: Any) -> dict[str, Any]:
    """A `Write` call's fields, as Claude Code's PreToolUse hook event holds them."""
    return {
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": content},
        "tool_use_id": "toolu_" + uuid.uuid4().hex[:20],
        "cwd": "/home/ann/project",
        "session_id": "session-1",
        "machine": "laptop",
        **extra,
    }


async def questions(db: Database) -> list[dict[str, Any]]:
    """Every question with its message's meta, oldest first."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT q.message_id, q.user_id, q.asked_by, q.status, m.meta, m.content,"
            " c.mode::text AS mode FROM questions q"
            " JOIN messages m ON m.user_id = q.user_id AND m.id = q.message_id"
            " JOIN conversations c ON c.user_id = q.user_id AND c.id = q.conversation_id"
            " ORDER BY q.message_id"
        )
    return [dict(r) for r in rows]
