"""The MCP SDK's authorization-server handlers (metadata, authorize, token, register,
revoke: they parse and check the protocol, PKCE S256 included) over Parley's own storage.

Parley is the authorization server of exactly one resource, its `/mcp` endpoint: a request
for any other resource is refused (`invalid_target`), and each token records the resource it
was issued for, which `/mcp` compares with its own (RFC 8707).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from urllib.parse import parse_qs, urlencode

from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import AnyHttpUrl, AnyUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, ExceptionHandler, Receive, Scope, Send

from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError
from parley.services import from_scope

from . import consent, device_grant, redirects, tokens
from .clients import Clients
from .guards import CheckedAuthorization, CheckedRegistration, TooLarge, read_body, replaying

# An S256 challenge is a base64url SHA-256 without padding: exactly this (RFC 7636 §4.2).
S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
MAX_REVOCATION_BYTES = 16 * 1024  # a token and a client id
METADATA_PATH = "/.well-known/oauth-authorization-server"
PATHS = (METADATA_PATH, "/authorize", "/token", "/register", "/revoke", device_grant.PATH)


class HeldCode(AuthorizationCode):
    grant_id: int


class HeldRefresh(RefreshToken):
    grant_id: int


class HeldAccess(AccessToken):
    grant_id: int


def resource_of(settings: Settings) -> str:
    """The one resource Parley issues tokens for."""
    return settings.public_url.rstrip("/") + "/mcp"


class Provider:
    """`OAuthAuthorizationServerProvider` for the SDK's handlers. `forget` is called after a
    revocation here, so this instance stops accepting the token at once."""

    def __init__(self, db: Database, *, settings: Settings, forget: Callable[[], None]) -> None:
        self.db = db
        self.settings = settings
        self.forget = forget
        self.issuer = settings.public_url.rstrip("/")
        self.resource = resource_of(settings)
        self.clients = Clients(db, allow_private=settings.oauth_cimd_allow_private)
        self.access = timedelta(seconds=settings.oauth_access_seconds)
        self.refresh = timedelta(days=settings.oauth_refresh_days)
        self.grant_max = timedelta(days=settings.oauth_grant_days)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return await self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """The raw request was checked (`guards`); the parsed URIs are checked again, so
        nothing the two parsers might read differently is ever stored."""
        for uri in client_info.redirect_uris or []:
            try:
                redirects.check(str(uri))
            except redirects.BadRedirect as exc:
                raise RegistrationError("invalid_redirect_uri", exc.description) from exc
        await self.clients.register(client_info)

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        if not S256_CHALLENGE.fullmatch(params.code_challenge):
            raise AuthorizeError("invalid_request", "code_challenge must be an S256 challenge")
        resource = (params.resource or self.resource).rstrip("/")
        if resource != self.resource:
            raise AuthorizeError("invalid_target", f"This server issues tokens for {self.resource}")
        secret = await consent.start(
            self.db,
            client_id=client.client_id,
            client_name=client.client_name
            or consent.client_host(client.client_id, str(params.redirect_uri)),
            redirect_uri=str(params.redirect_uri),
            redirect_uri_explicit=params.redirect_uri_provided_explicitly,
            code_challenge=params.code_challenge,
            state=params.state,
            scopes=params.scopes or [],
            resource=resource,
        )
        # The page's form is answered by a redirect to the client: its policy must let a form
        # lead there (`form-action`), so the page is told where (a hint that only widens where
        # its own form may go; the redirect itself is the server's).
        target = redirects.form_target(str(params.redirect_uri))
        query = urlencode({"request": secret, "client": target})
        return f"{self.settings.web_origin}/oauth/consent?{query}"

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> HeldCode | None:
        code = await tokens.load_code(self.db, code=authorization_code)
        if code == tokens.REPLAYED:
            self.forget()  # the replayed code revoked its app
        if not isinstance(code, tokens.Code):
            return None
        return HeldCode(
            code=authorization_code,
            scopes=code.scopes,
            expires_at=code.valid_until,
            client_id=code.client_id,
            code_challenge=code.code_challenge,
            redirect_uri=AnyUrl(code.redirect_uri),
            redirect_uri_provided_explicitly=code.redirect_uri_explicit,
            resource=code.resource,
            subject=code.user_id,
            grant_id=code.grant_id,
        )

    def _token(self, issued: tokens.Issued, scopes: list[str]) -> OAuthToken:
        return OAuthToken(
            access_token=issued.access,
            expires_in=issued.expires_in,
            refresh_token=issued.refresh,
            scope=" ".join(scopes) or None,
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        issued = await tokens.exchange_code(
            self.db,
            code=authorization_code.code,
            access=self.access,
            refresh=self.refresh,
            grant_max=self.grant_max,
        )
        if issued == tokens.REPLAYED:
            self.forget()
        if not isinstance(issued, tokens.Issued):
            raise TokenError("invalid_grant", "authorization code was already used")
        return self._token(issued, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> HeldRefresh | None:
        held = await tokens.load_refresh(self.db, token=refresh_token)
        if held == tokens.REPLAYED:
            self.forget()  # the rotated token presented again revoked its app
        if not isinstance(held, tokens.Held):
            return None
        return HeldRefresh(
            token=refresh_token,
            client_id=held.client_id,
            scopes=[],
            expires_at=int(held.expires_at),
            resource=held.resource,
            subject=held.user_id,
            grant_id=held.grant_id,
        )

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        issued = await tokens.rotate(
            self.db,
            token=refresh_token.token,
            access=self.access,
            refresh=self.refresh,
            grant_max=self.grant_max,
        )
        if issued is None:
            raise TokenError(
                "invalid_grant", "refresh token was already used, or the app must be allowed again"
            )
        return self._token(issued, scopes)

    async def load_access_token(self, token: str) -> HeldAccess | None:
        held = await tokens.load_access(self.db, token=token)
        if held is None:
            return None
        return HeldAccess(
            token=token,
            client_id=held.client_id,
            scopes=[],
            expires_at=int(held.expires_at),
            resource=held.resource,
            subject=held.user_id,
            grant_id=held.grant_id,
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """RFC 7009: revoking either token ends the connected app (both tokens and any
        others it holds)."""
        if isinstance(token, HeldAccess | HeldRefresh):
            await tokens.revoke_grant(self.db, grant_id=token.grant_id)
            self.forget()

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "Only authorization_code and refresh_token")


class Metadata(OAuthMetadata):
    """The SDK's model, plus the device authorization endpoint (RFC 8628 §4)."""

    device_authorization_endpoint: AnyHttpUrl | None = None


def metadata(issuer: str) -> Metadata:
    """RFC 8414, as the SDK builds it, plus what it does not know Parley supports: public
    clients (PKCE, no secret), Client ID Metadata Documents, and the device authorization
    grant (RFC 8628) of `parley connect`."""
    built = build_metadata(
        AnyHttpUrl(issuer),
        None,
        ClientRegistrationOptions(enabled=True),
        RevocationOptions(enabled=True),
    )
    built.token_endpoint_auth_methods_supported = [
        "none",
        "client_secret_post",
        "client_secret_basic",
    ]
    built.revocation_endpoint_auth_methods_supported = built.token_endpoint_auth_methods_supported
    built.client_id_metadata_document_supported = True
    built.authorization_response_iss_parameter_supported = True
    built.grant_types_supported = [*(built.grant_types_supported or []), device_grant.GRANT_TYPE]
    # Re-validated so the issuer keeps its exact spelling (no trailing slash): clients compare
    # it, and the `iss` of each authorization response (RFC 9207), as strings.
    return Metadata.model_validate(
        {
            **built.model_dump(mode="json"),
            "issuer": issuer,
            "device_authorization_endpoint": issuer + device_grant.PATH,
        }
    )


def build_app(
    provider: Provider,
    *,
    address: Callable[[Request], str],
    on_error: ExceptionHandler | None = None,
) -> Starlette:
    """The SDK's handlers over `provider`, and the device authorization grant's; `address`
    says which client a request is from (the sign-in limits' reading); `on_error` answers a
    ParleyError they let through (the database refusing text it cannot store, say) instead
    of a 500."""
    routes = create_auth_routes(
        provider,
        issuer_url=AnyHttpUrl(provider.issuer),
        client_registration_options=ClientRegistrationOptions(enabled=True),
        revocation_options=RevocationOptions(enabled=True),
    )
    handler = cors_middleware(MetadataHandler(metadata(provider.issuer)).handle, ["GET", "OPTIONS"])
    kept: list[Route] = []
    for route in routes:
        if route.path == METADATA_PATH:
            route = Route(METADATA_PATH, endpoint=handler, methods=["GET", "OPTIONS"])
        elif route.path == "/revoke":
            revoke = device_grant.KeyRevocation(
                PublicRevocation(route.app), provider.db, provider.forget
            )
            route = Route(route.path, endpoint=revoke, methods=["POST", "OPTIONS"])
        elif route.path == "/token":
            grant = device_grant.DeviceToken(route.app, provider.db, provider.settings)
            route = Route(route.path, endpoint=grant, methods=["POST", "OPTIONS"])
        elif route.path == "/register":
            route = Route(
                route.path, endpoint=CheckedRegistration(route.app), methods=["POST", "OPTIONS"]
            )
        elif route.path == "/authorize":
            route = Route(
                route.path, endpoint=CheckedAuthorization(route.app), methods=["GET", "POST"]
            )
        kept.append(route)
    authorization = device_grant.DeviceAuthorization(provider.db, provider.settings, address)
    kept.append(Route(device_grant.PATH, endpoint=authorization, methods=["POST"]))
    handlers = {ParleyError: on_error} if on_error is not None else {}
    return Starlette(routes=kept, exception_handlers=handlers)


class PublicRevocation:
    """RFC 7009 lets a public client revoke with `token` and `client_id` only; the SDK's
    request model wants a `client_secret` field even when it is empty, so add one."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, limit=MAX_REVOCATION_BYTES)
        except TooLarge:
            await JSONResponse({"error": "invalid_request"}, status_code=413)(scope, receive, send)
            return
        if "client_secret" not in parse_qs(body.decode("latin-1"), keep_blank_values=True):
            body += b"&client_secret=" if body else b"client_secret="
        await self.app(scope, replaying(body, receive), send)


class OAuthRoute:
    """What the app routes the authorization server's paths to when it is created; forwards
    to the app of the services its lifespan builds (the handlers need the database, which
    exists only then)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = from_scope(scope)
        if services is None:
            body = {"error": {"code": "unavailable", "message": "OAuth is not running"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        await services.oauth(scope, receive, send)


def oauth_routes() -> list[Route]:
    endpoint = OAuthRoute()
    return [Route(path, endpoint=endpoint, include_in_schema=False) for path in PATHS]
