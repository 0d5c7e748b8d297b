"""Parley's own MCP server, reached in-process by the Agents SDK through `mcp.Client`.

One connection is opened at start-up and shared by every turn; the user of each tool call
travels in the request `_meta`, set from the turn's run context, never from the model.
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

from parley.tools.identity import USER_META_KEY


def _user_meta(context: MCPToolMetaContext) -> dict[str, Any]:
    return {USER_META_KEY: context.run_context.context.user_id}


class InProcessTools(AgentsMCPServer):
    def __init__(self, server: MCPServer) -> None:
        super().__init__(use_structured_content=True, tool_meta_resolver=_user_meta)
        self._server = server
        self._client: Client | None = None
        self._stack: AsyncExitStack | None = None
        self._tools: list[MCPTool] | None = None

    @property
    def name(self) -> str:
        return "parley"

    async def connect(self) -> None:
        stack = AsyncExitStack()
        self._client = await stack.enter_async_context(Client(self._server))
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
        if self._client is None:
            raise RuntimeError("Parley tools are not connected")
        result = await self._client.call_tool(
            tool_name, arguments or {}, meta=cast(RequestParamsMeta | None, meta)
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
