"""`approve_tool_use`: Claude Code's permission-prompt tool (`claude -p
--permission-prompt-tool mcp__parley__approve_tool_use`), deciding a tool call the way its
PreToolUse hook does (`permission_requests`): a rule of the person's, else their answer."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import TextContent

from parley.auth import Caller
from parley.permission_requests import service
from parley.tools.annotations import add_tools
from parley.tools.context import guarded, services_of


def verdict(found: service.Outcome, tool_input: dict[str, Any]) -> dict[str, Any]:
    """The permission-prompt tool's result: allow with the input unchanged, else deny with
    why (still pending after the wait is a deny: Claude Code cannot wait longer)."""
    if found.decision == "allow":
        return {"behavior": "allow", "updatedInput": tool_input}
    if found.status == "pending":
        return {
            "behavior": "deny",
            "message": f"No answer from the person yet (Parley question {found.id});"
            " try again later",
        }
    return {"behavior": "deny", "message": found.reason}


async def approve_tool_use(
    tool_name: str, input: dict[str, Any], ctx: Context[Any], tool_use_id: str | None = None
) -> list[TextContent]:
    """Claude Code's permission prompt, answered by the person through Parley: their
    approval rules decide at once, else they are asked (inbox, notification) and this
    waits for the answer (at most 50 s). Returns text whose JSON is
    {"behavior": "allow", "updatedInput": <input>} or {"behavior": "deny", "message"}."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        settings = services.settings
        found = await service.request(
            services.db,
            caller=caller,
            tool_name=tool_name,
            tool_input=input,
            tool_use_id=tool_use_id or "",
            question_timeout=settings.question_timeout,
            remind_after=settings.permission_remind_minutes,
        )
        if found.status == "pending":
            assert found.id is not None
            found = await service.wait(
                services.db,
                services.waits,
                caller=caller,
                request_id=found.id,
                wait_s=settings.tool_wait_max,
            )
        return verdict(found, input)

    decided = await guarded(ctx, op)
    return [TextContent(type="text", text=json.dumps(decided))]


TOOLS = (approve_tool_use,)


def register(server: MCPServer[Any]) -> None:
    add_tools(server, TOOLS)
