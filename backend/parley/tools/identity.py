"""Who is calling a tool. Each transport resolves it its own way; no tool takes a user argument."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import USER_META_KEY, Caller

__all__ = ["USER_META_KEY", "CallerResolver", "fixed_user", "from_request_meta"]

CallerResolver = Callable[[Context[Any]], Caller]


def from_request_meta(ctx: Context[Any]) -> Caller:
    """In process (the assistant's tools): the person the turn's `_meta` names, never an
    agent."""
    meta = ctx.request_context.meta or {}
    user_id = meta.get(USER_META_KEY) if isinstance(meta, dict) else None
    if not isinstance(user_id, str) or not user_id:
        raise ToolError("No authenticated user for this tool call")
    return Caller(user_id)


def fixed_user(user_id: str, agent: str | None = None) -> CallerResolver:
    """For a transport whose whole session belongs to one caller (stdio with `--user`)."""
    caller = Caller(user_id, agent)

    def resolve(_ctx: Context[Any]) -> Caller:
        return caller

    return resolve
