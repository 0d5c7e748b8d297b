"""MCP over streamable HTTP at `/mcp`, for agents running anywhere.

The identity is the bearer token's and nothing else's: `McpHttp` verifies the token before
the MCP SDK sees the request and stores the user in the ASGI scope under a key no client
can write; the tools' resolver reads it back from the request the SDK attaches to each
call. The in-process server's `_meta` resolver is never wired to this server, so a remote
caller cannot name a user.

Stateless mode: every POST is verified and served on its own, so any instance behind a
load balancer can answer any request and an expired token stops working at once.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from parley.auth import Caller, bearer_token, verify_caller
from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError, Unauthorized
from parley.limits import RateLimiter
from parley.realtime.hub import Hub
from parley.realtime.waits import Waits
from parley.tools.agent_tools import AgentToolDeps
from parley.tools.server import build_server

log = logging.getLogger(__name__)

# A scope key, not a header: headers come from the client, scope keys only from the server.
USER_SCOPE_KEY = "parley.mcp.user_id"
# Tool arguments are a few KiB at most; a bigger body is a mistake or an attack.
MAX_BODY_BYTES = 1024 * 1024


def caller_from_verified_request(ctx: Context[Any]) -> Caller:
    """The caller `McpHttp` verified for this HTTP request; fails closed without one."""
    request = getattr(ctx.request_context, "request", None)
    caller = request.scope.get(USER_SCOPE_KEY) if isinstance(request, Request) else None
    if not isinstance(caller, Caller):
        raise ToolError("No authenticated user for this tool call")
    return caller


def from_verified_request(ctx: Context[Any]) -> str:
    return caller_from_verified_request(ctx).user_id


def transport_security(settings: Settings) -> TransportSecuritySettings:
    hosts = [h.strip() for h in settings.mcp_allowed_hosts.split(",") if h.strip()]
    if not hosts or "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class McpHttp:
    """The `/mcp` ASGI app: bearer auth and the per-user rate cap in front of the SDK's
    streamable-HTTP session manager."""

    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        hub: Hub,
        waits: Waits,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.settings = settings
        self.limiter = limiter
        agent_tools = AgentToolDeps(
            db=db,
            hub=hub,
            waits=waits,
            settings=settings,
            resolve_caller=caller_from_verified_request,
        )
        self.server: MCPServer = build_server(
            db=db, resolve_user=from_verified_request, agent_tools=agent_tools
        )
        # Builds the session manager; the Starlette app it returns is not used, because
        # Parley mounts the manager itself behind its own auth.
        self.server.streamable_http_app(
            stateless_http=True,
            transport_security=transport_security(settings),
            max_request_body_size=MAX_BODY_BYTES,
        )

    @asynccontextmanager
    async def run(self) -> AsyncIterator[McpHttp]:
        """The session manager's task group must live as long as the app serves."""
        async with self.server.session_manager.run():
            yield self

    def authenticate(self, scope: Scope) -> Caller:
        caller = verify_caller(
            secret=self.settings.auth_secret,
            token=bearer_token(Headers(scope=scope).get("authorization")),
        )
        if self.limiter is not None:
            self.limiter.check(caller.user_id)
        return caller

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            caller = self.authenticate(scope)
        except ParleyError as exc:
            headers = {}
            if isinstance(exc, Unauthorized):
                # RFC 6750: no error code when the request simply had no credentials.
                sent = "authorization" in Headers(scope=scope)
                challenge = 'Bearer realm="parley"' + (', error="invalid_token"' if sent else "")
                headers["WWW-Authenticate"] = challenge
            if "retry_after_seconds" in exc.extra:
                headers["Retry-After"] = str(exc.extra["retry_after_seconds"])
            response = JSONResponse(exc.body(), status_code=exc.status, headers=headers)
            await response(scope, receive, send)
            return
        await self.server.session_manager.handle_request(
            {**scope, USER_SCOPE_KEY: caller}, receive, send
        )


class McpRoute:
    """What the app routes `/mcp` to when it is created; forwards to the `McpHttp` its
    lifespan builds (the tools need the database, which exists only from then on).

    A class instance, not a function, so Starlette's `Route` treats it as a raw ASGI app.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        mcp: McpHttp | None = getattr(scope["app"].state, "mcp_http", None)
        if mcp is None:
            body = {"error": {"code": "unavailable", "message": "MCP is not running"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        await mcp(scope, receive, send)


def mcp_route(path: str = "/mcp") -> Route:
    """A plain route, not a `Mount`: a mount would redirect `/mcp` to `/mcp/`."""
    return Route(path, endpoint=McpRoute(), include_in_schema=False)
