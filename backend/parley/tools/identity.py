"""Who is calling a tool. Each transport resolves it its own way; no tool takes a user argument."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import USER_META_KEY

__all__ = ["USER_META_KEY", "UserResolver", "fixed_user", "from_request_meta"]

UserResolver = Callable[[Context[Any]], str]


def from_request_meta(ctx: Context[Any]) -> str:
    meta = ctx.request_context.meta or {}
    user_id = meta.get(USER_META_KEY) if isinstance(meta, dict) else None
    if not isinstance(user_id, str) or not user_id:
        raise ToolError("No authenticated user for this tool call")
    return user_id


def fixed_user(user_id: str) -> UserResolver:
    """For a transport whose whole session belongs to one user (stdio with a token)."""

    def resolve(_ctx: Context[Any]) -> str:
        return user_id

    return resolve
