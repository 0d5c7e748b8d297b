"""MCP over streamable HTTP at `/mcp`, for agents running anywhere.

Authentication is the MCP SDK's own: a `TokenVerifier` checks Parley's bearer credential (an
agent key, or a `parley token` JWT; through `parley.accounts.credentials`, so a revoked one
is refused within a second on every instance), and a
request without a valid one gets `401` with a `WWW-Authenticate` header pointing at the
OAuth protected-resource metadata (RFC 9728, served at
`/.well-known/oauth-protected-resource/mcp`), which MCP clients read as "authentication
required". The identity is the token's and nothing else's: the tools' resolver reads the
user the SDK's middleware put in the ASGI scope (clients cannot write scope keys). The
in-process server's `_meta` resolver is never wired to this server.

Stateless mode: every POST is verified and served on its own, so any instance behind a
load balancer can answer any request and an expired token stops working at once.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from parley.accounts.credentials import Credentials
from parley.auth import Caller, bearer_token
from parley.config import Settings
from parley.errors import ParleyError, RateLimited
from parley.limits import RateLimiter
from parley.services import Services, from_scope
from parley.tools.context import ToolContext
from parley.tools.server import build_server

log = logging.getLogger(__name__)

PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"
# Tool arguments are a few KiB at most; a bigger body is a mistake or an attack.
MAX_BODY_BYTES = 1024 * 1024


class ParleyAccess(AccessToken):
    """What the SDK keeps of a verified credential: also the agent it names, if any."""

    agent: str | None = None


class ParleyTokens(TokenVerifier):
    """Parley's bearer credentials for the SDK's auth middleware."""

    def __init__(self, credentials: Credentials, *, resource: str) -> None:
        self.credentials = credentials
        self.resource = resource  # an OAuth access token must have been issued for it

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            caller = (await self.credentials.bearer(token, resource=self.resource)).caller
        except ParleyError:
            return None
        return ParleyAccess(
            token=token,
            client_id=caller.author,
            subject=caller.user_id,
            scopes=[],
            agent=caller.agent,
        )

    def caller(self, ctx: Context[Any]) -> Caller:
        """The person, and agent, the SDK's middleware verified for this request."""
        request = getattr(ctx.request_context, "request", None)
        user = request.scope.get("user") if isinstance(request, Request) else None
        if not isinstance(user, AuthenticatedUser) or not user.access_token.subject:
            raise ToolError("No authenticated user for this tool call")
        access = user.access_token
        assert access.subject is not None  # checked above
        agent = access.agent if isinstance(access, ParleyAccess) else None
        return Caller(access.subject, agent)


# Loopback names at any port: a local client (Claude Code, MCP Inspector) reaches /mcp there.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The SDK's Host and Origin check, on unless PARLEY_MCP_ALLOWED_HOSTS is `*`: a page that
    rebinds its own name to this machine (DNS rebinding) sends its own name as `Host` and
    `Origin`, so it is refused (even one holding a leaked token). By default the hosts
    are loopback's and PARLEY_PUBLIC_URL's (where OAuth clients are told /mcp is); browser
    origins are those hosts' and the web UI's."""
    listed = [h.strip() for h in settings.mcp_allowed_hosts.split(",") if h.strip()]
    if "*" in listed:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    public = urlsplit(settings.public_url).netloc
    hosts = listed or [*LOOPBACK_HOSTS, *(f"{h}:*" for h in LOOPBACK_HOSTS), public]
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    origins += settings.web_origins
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class McpHttp:
    """The `/mcp` ASGI app: the per-user rate cap in front of the SDK's authenticated
    streamable-HTTP app.

    Made before the services it serves (they hold it, to route `/mcp` to it) and handed
    them in `run`, which enters the MCP server's lifespan: its tools reach them there."""

    def __init__(
        self, *, settings: Settings, credentials: Credentials, limiter: RateLimiter | None = None
    ) -> None:
        self.settings = settings
        self.limiter = limiter
        public = settings.public_url.rstrip("/")
        self.credentials = credentials
        self.tokens = tokens = ParleyTokens(credentials, resource=public + PATH)
        self._context: ToolContext | None = None
        self.server: MCPServer[Any] = build_server(
            lifespan=self._lifespan,
            remote=settings,
            token_verifier=tokens,
            auth=AuthSettings(
                issuer_url=public,  # type: ignore[arg-type]
                resource_server_url=public + PATH,  # type: ignore[arg-type]
                # `ParleyTokens` compares an OAuth token's resource itself; keys and JWTs name none
                validate_token_resource=False,
            ),
        )
        self.app: Starlette = self.server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            transport_security=transport_security(settings),
            max_request_body_size=MAX_BODY_BYTES,
        )

    @asynccontextmanager
    async def _lifespan(self, _server: MCPServer[Any]) -> AsyncIterator[ToolContext]:
        if self._context is None:
            raise RuntimeError("McpHttp serves only inside run()")
        yield self._context

    @asynccontextmanager
    async def run(self, services: Services) -> AsyncIterator[McpHttp]:
        """The session manager's task group (and with it the server's lifespan) must live as
        long as the app serves. The identity is the verified token's, and nothing else's."""
        self._context = ToolContext(services=services, caller=self.tokens.caller)
        try:
            async with self.server.session_manager.run():
                yield self
        finally:
            self._context = None

    async def _rate_limited(self, scope: Scope) -> RateLimited | None:
        if self.limiter is None or scope["path"] != PATH:
            return None
        try:
            token = bearer_token(Headers(scope=scope).get("authorization"))
            verified = await self.credentials.bearer(token, resource=self.tokens.resource)
            user_id = verified.caller.user_id
        except ParleyError:
            return None  # the SDK's middleware answers 401
        try:
            self.limiter.check(user_id)
        except RateLimited as exc:
            return exc
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = await self._rate_limited(scope)
        if refused is not None:
            headers = {"Retry-After": str(refused.extra["retry_after_seconds"])}
            response = JSONResponse(refused.body(), status_code=refused.status, headers=headers)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class McpRoute:
    """What the app routes `/mcp` (and its metadata) to when it is created; forwards to the
    `McpHttp` of the services its lifespan builds (the tools need the database, which exists
    only then).

    A class instance, not a function, so Starlette's `Route` treats it as a raw ASGI app.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = from_scope(scope)
        if services is None:
            body = {"error": {"code": "unavailable", "message": "MCP is not running"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        await services.mcp(scope, receive, send)


def mcp_routes() -> list[Route]:
    """Plain routes, not a `Mount`: a mount would redirect `/mcp` to `/mcp/`."""
    endpoint = McpRoute()
    return [
        Route(path, endpoint=endpoint, include_in_schema=False) for path in (PATH, METADATA_PATH)
    ]
