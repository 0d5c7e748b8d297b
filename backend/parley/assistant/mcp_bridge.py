"""Parley's own MCP server, reached in-process by the Agents SDK through `mcp.Client`.

One connection is opened at start-up and shared by every turn; the user of each tool call
travels in the request `_meta`, set from the turn's run context, never from the model.
Each call a turn makes goes on the turn's record (parley.assistant.ledger) as it happens.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any, cast

from agents.mcp import MCPServer as AgentsMCPServer
from agents.mcp.util import MCPToolMetaContext
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ListPromptsResult,
    RequestParamsMeta,
    TextContent,
)
from mcp.types import Tool as MCPTool

from parley.assistant.ledger import Ledger, TurnKey
from parley.auth import USER_META_KEY

# The turn a call belongs to, next to the user in `_meta`; read here, never by a tool.
TURN_META_KEY = "parley.dev/turn"


def _user_meta(context: MCPToolMetaContext) -> dict[str, Any]:
    turn = context.run_context.context
    meta: dict[str, Any] = {USER_META_KEY: turn.user_id}
    if turn.turn_id:
        meta[TURN_META_KEY] = [turn.conversation_id, turn.turn_id, turn.prompt_id, turn.retry]
    return meta


def _turn_key(meta: dict[str, Any] | None) -> TurnKey | None:
    meta = meta or {}
    turn = meta.get(TURN_META_KEY)
    if not turn:
        return None
    conversation_id, turn_id, prompt_id, retry = turn
    return TurnKey(str(meta[USER_META_KEY]), conversation_id, turn_id, prompt_id, retry)


def record_value(result: CallToolResult) -> Any:
    """A tool result as the conversation stores it: the structured content, else the text
    (parsed when it is JSON)."""
    if result.structured_content is not None:
        return result.structured_content
    text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _from_record(value: Any, *, error: bool) -> CallToolResult:
    structured = value if isinstance(value, dict) and not error else None
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(value))],
        structured_content=structured,
        is_error=error,
    )


class InProcessTools(AgentsMCPServer):
    """Made before the server it connects to (`connect`): that server's tools reach the
    process's services, which hold the assistant these tools belong to."""

    def __init__(self, ledger: Ledger | None = None) -> None:
        super().__init__(use_structured_content=True, tool_meta_resolver=_user_meta)
        self._ledger = ledger
        self._client: Client | None = None
        self._stack: AsyncExitStack | None = None
        self._tools: list[MCPTool] | None = None

    @property
    def name(self) -> str:
        return "parley"

    async def connect(self, server: MCPServer[Any] | None = None) -> None:
        if server is None:  # the Agents SDK's own interface has no argument
            raise RuntimeError("Parley's tools connect to a server given at start-up")
        stack = AsyncExitStack()
        self._client = await stack.enter_async_context(Client(server))
        self._stack = stack
        self._tools = list((await self._client.list_tools()).tools)

    async def cleanup(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
        self._stack = None
        self._client = None

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[MCPTool]:
        if self._tools is None:
            raise RuntimeError("Parley tools are not connected")
        return self._tools

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        key = _turn_key(meta)
        if self._ledger is None or key is None:
            return await self._call(tool_name, arguments or {}, meta)
        outcome: list[CallToolResult] = []

        async def run() -> Any:
            outcome.append(await self._call(tool_name, arguments or {}, meta))
            value = record_value(outcome[0])
            return {"error": value} if outcome[0].is_error and not _is_error(value) else value

        value = await self._ledger.call(key, tool_name, arguments or {}, run)
        return outcome[0] if outcome else _from_record(value, error=_is_error(value))

    async def _call(
        self, tool_name: str, arguments: dict[str, Any], meta: dict[str, Any] | None
    ) -> CallToolResult:
        if self._client is None:
            raise RuntimeError("Parley tools are not connected")
        result = await self._client.call_tool(
            tool_name, arguments, meta=cast(RequestParamsMeta | None, meta)
        )
        if result.is_error:
            # A JSON error object reads the same to the model and to the stored record.
            text = " ".join(c.text for c in result.content if isinstance(c, TextContent))
            return CallToolResult(
                content=[
                    TextContent(type="text", text=json.dumps({"error": text or "Tool failed"}))
                ],
                is_error=True,
            )
        return result

    async def list_prompts(self) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None
    ) -> GetPromptResult:
        raise KeyError(name)


def _is_error(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"error"}
