"""Dependencies as `Annotated` aliases: routes declare what they need, never how to get it.

They are `async def`: FastAPI runs a plain `def` dependency in a worker thread, which would
cost a thread hop per dependency per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from parley.accounts import reauth
from parley.accounts.credentials import Credentials, Principal
from parley.accounts.oidc import Provider as OidcProvider
from parley.api.web_session import COOKIE, UNSAFE, check_origin
from parley.assistant.runner import Assistant
from parley.audit.channel import Channel, set_channel
from parley.auth import USER_ID_PATTERN, Caller, bearer_token
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden, Unauthorized
from parley.limits import RateLimiter
from parley.modes import Modes
from parley.push.service import Push
from parley.realtime.hub import Hub
from parley.realtime.waits import Waits
from parley.services import ApiServices, from_scope
from parley.stated import stated
from parley.work.manager import WorkManager


async def _services(request: Request) -> ApiServices:
    """The services the lifespan made, from the lifespan state Starlette copies into every
    request (`request.state`)."""
    services = from_scope(request.scope)
    if services is None:  # an app served without its lifespan: a wiring bug
        raise RuntimeError("The app's services are not running")
    return services


ServicesDep = Annotated[ApiServices, Depends(_services)]


async def _hub(services: ServicesDep) -> Hub:
    return services.hub


async def _waits(services: ServicesDep) -> Waits:
    return services.waits


async def _settings(services: ServicesDep) -> Settings:
    return services.settings


async def _db(services: ServicesDep) -> Database:
    return services.db


async def _assistant(services: ServicesDep) -> Assistant:
    return services.assistant


async def _limiter(services: ServicesDep) -> RateLimiter:
    return services.limiter


async def _runner(services: ServicesDep) -> TurnRunner:
    return services.runner


async def _work(services: ServicesDep) -> WorkManager:
    return services.work


async def _modes(services: ServicesDep) -> Modes:
    return services.modes


async def _credentials(services: ServicesDep) -> Credentials:
    return services.credentials


async def _push(services: ServicesDep) -> Push:
    return services.push


async def _oidc(services: ServicesDep) -> OidcProvider | None:
    return services.oidc


HubDep = Annotated[Hub, Depends(_hub)]
WaitsDep = Annotated[Waits, Depends(_waits)]
SettingsDep = Annotated[Settings, Depends(_settings)]
DbDep = Annotated[Database, Depends(_db)]
AssistantDep = Annotated[Assistant, Depends(_assistant)]
LimiterDep = Annotated[RateLimiter, Depends(_limiter)]
RunnerDep = Annotated[TurnRunner, Depends(_runner)]
WorkDep = Annotated[WorkManager, Depends(_work)]
ModesDep = Annotated[Modes, Depends(_modes)]
CredentialsDep = Annotated[Credentials, Depends(_credentials)]
PushDep = Annotated[Push, Depends(_push)]
# The configured OpenID provider, None where sign-in with one is not configured.
OidcDep = Annotated[OidcProvider | None, Depends(_oidc)]


# Declared as a security scheme so the OpenAPI schema (and /docs) knows about bearer auth;
# the checks and their JSON errors stay ours.
_bearer = HTTPBearer(
    auto_error=False, description="An agent key (pk_parley_…) or a `parley token` JWT"
)


async def _principal(
    request: Request,
    settings: SettingsDep,
    credentials: CredentialsDep,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
    session: Annotated[str | None, Cookie(alias=COOKIE, include_in_schema=False)] = None,
) -> Principal:
    """A bearer credential when the request has an Authorization header (programs), else the
    web session's cookie (browsers), which an unsafe request may use only from the web UI's
    origin: a cross-site form can send the cookie but not a listed Origin."""
    if bearer is not None or authorization is not None:
        token = bearer.credentials if bearer else bearer_token(authorization)
        principal = await credentials.bearer(token)
        set_channel(Channel("rest"))  # what the audit trail says a decision came through
        return principal
    if session:
        principal = await credentials.session(session)
        check_origin(request, settings, required=request.method in UNSAFE)
        set_channel(Channel("web", session_id=principal.session_id))
        return principal
    raise Unauthorized("Sign in, or send 'Authorization: Bearer <key>'")


PrincipalDep = Annotated[Principal, Depends(_principal)]


async def _token_caller(principal: PrincipalDep) -> Caller:
    return principal.caller


TokenCaller = Annotated[Caller, Depends(_token_caller)]


# A user id in a path: the credential's own (any other is a 403).
PathUserId = Annotated[str, Path(max_length=64), stated(pattern=USER_ID_PATTERN)]


async def _path_principal(user_id: PathUserId, principal: PrincipalDep) -> Principal:
    """The path's user, which must be the credential's: nobody acts for someone else."""
    if user_id != principal.caller.user_id:
        raise Forbidden("This credential belongs to another user")
    return principal


PathPrincipal = Annotated[Principal, Depends(_path_principal)]


async def _path_caller(principal: PathPrincipal) -> Caller:
    return principal.caller


# The person or agent acting, for routes where it matters who writes.
CurrentCaller = Annotated[Caller, Depends(_path_caller)]


async def _path_user(caller: CurrentCaller) -> str:
    return caller.user_id


CurrentUser = Annotated[str, Depends(_path_user)]


async def _person(caller: CurrentCaller) -> str:
    """Routes that act as the person themselves (a chat turn, a read position): an agent's
    credential would otherwise put words in the person's mouth."""
    if caller.agent is not None:
        raise Forbidden("An agent's token cannot act as the person here", code="agent_not_allowed")
    return caller.user_id


PersonUser = Annotated[str, Depends(_person)]


async def _person_principal(principal: PathPrincipal) -> Principal:
    if principal.caller.agent is not None:
        raise Forbidden("An agent's key cannot manage credentials", code="agent_not_allowed")
    return principal


# The person on their own path, with how they signed in (credential management).
PersonPrincipal = Annotated[Principal, Depends(_person_principal)]


async def _signed_in_person(principal: PrincipalDep) -> Principal:
    if principal.caller.agent is not None:
        raise Forbidden("An agent's key cannot do this", code="agent_not_allowed")
    return principal


SignedInPerson = Annotated[Principal, Depends(_signed_in_person)]


async def _recent_person(principal: SignedInPerson, db: DbDep, settings: SettingsDep) -> Principal:
    await reauth.require_recent(db, principal=principal, settings=settings)
    return principal


# The person, signed in within PARLEY_REAUTH_MINUTES (else 403 `reauth_required`): for what
# a stolen session must not turn into lasting access (accounts/reauth.py).
RecentPerson = Annotated[Principal, Depends(_recent_person)]


async def _recent_path_person(
    principal: PersonPrincipal, db: DbDep, settings: SettingsDep
) -> Principal:
    await reauth.require_recent(db, principal=principal, settings=settings)
    return principal


RecentPathPerson = Annotated[Principal, Depends(_recent_path_person)]


async def _admin(principal: SignedInPerson) -> Principal:
    if not principal.is_admin:
        raise Forbidden("Only an admin can do this", code="admin_required")
    return principal


AdminPrincipal = Annotated[Principal, Depends(_admin)]
