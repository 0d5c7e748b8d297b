"""What a tool call reaches: the process's services and who is calling, as the MCP SDK's
own lifespan context (`ctx.request_context.lifespan_context`), so the tools are plain
module-level functions and every transport serves the same ones."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from parley.audit.channel import Channel, set_channel
from parley.auth import Caller
from parley.errors import ParleyError
from parley.services import Services
from parley.tools.identity import CallerResolver

Lifespan = Callable[[MCPServer[Any]], AbstractAsyncContextManager["ToolContext | Starting"]]


@dataclass(frozen=True)
class ToolContext:
    services: Services
    # Who is calling: each transport resolves it its own way (the request `_meta` in
    # process, the verified token over HTTP, the process's identity over stdio).
    caller: CallerResolver


class Starting:
    """A context still being made (`parley mcp` answers its handshake while the database
    starts): a tool call waits for it, and fails with the reason if making it failed."""

    def __init__(self, making: asyncio.Task[ToolContext]) -> None:
        self.making = making

    async def ready(self) -> ToolContext:
        return await asyncio.shield(self.making)


def serving(context: ToolContext) -> Lifespan:
    """A server lifespan that hands every call `context`."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[ToolContext]:
        yield context

    return lifespan


async def ready_context(found: object) -> ToolContext:
    """A server's lifespan context as the tool context, once it is made."""
    if isinstance(found, Starting):
        found = await found.ready()
    if not isinstance(found, ToolContext):  # a server built without `serving`: a wiring bug
        raise RuntimeError("The MCP server has no Parley tool context")
    return found


async def context_of(ctx: Context[Any]) -> ToolContext:
    return await ready_context(ctx.request_context.lifespan_context)


async def services_of(ctx: Context[Any]) -> Services:
    return (await context_of(ctx)).services


async def caller_of(ctx: Context[Any]) -> Caller:
    """The tool's caller; what it decides reached Parley over MCP (the audit trail)."""
    caller = (await context_of(ctx)).caller(ctx)
    set_channel(Channel("mcp"))
    return caller


async def guarded(
    ctx: Context[Any], op: Callable[[Caller], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """The caller's `op`, a refusal turned into an error result the model can read."""
    caller = await caller_of(ctx)
    try:
        return await op(caller)
    except ParleyError as exc:
        raise ToolError(exc.message) from exc
