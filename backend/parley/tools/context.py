"""What a tool call reaches: the process's services and who is calling, as the MCP SDK's
own lifespan context (`ctx.request_context.lifespan_context`), so the tools are plain
module-level functions and every transport serves the same ones."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import Caller
from parley.errors import ParleyError
from parley.services import Services
from parley.tools.identity import CallerResolver

Lifespan = Callable[[MCPServer[Any]], AbstractAsyncContextManager["ToolContext"]]


@dataclass(frozen=True)
class ToolContext:
    services: Services
    # Who is calling: each transport resolves it its own way (the request `_meta` in
    # process, the verified token over HTTP, the process's identity over stdio).
    caller: CallerResolver


def serving(context: ToolContext) -> Lifespan:
    """A server lifespan that hands every call `context`."""

    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[ToolContext]:
        yield context

    return lifespan


def context_of(ctx: Context[Any]) -> ToolContext:
    found = ctx.request_context.lifespan_context
    if not isinstance(found, ToolContext):  # a server built without `serving`: a wiring bug
        raise RuntimeError("The MCP server has no Parley tool context")
    return found


def services_of(ctx: Context[Any]) -> Services:
    return context_of(ctx).services


def caller_of(ctx: Context[Any]) -> Caller:
    return context_of(ctx).caller(ctx)


async def guarded(
    ctx: Context[Any], op: Callable[[Caller], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """The caller's `op`, a refusal turned into an error result the model can read."""
    caller = caller_of(ctx)
    try:
        return await op(caller)
    except ParleyError as exc:
        raise ToolError(exc.message) from exc
