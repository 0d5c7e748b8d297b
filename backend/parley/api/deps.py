"""Dependencies as `Annotated` aliases: routes declare what they need, never how to get it.

They are `async def` although they never await: FastAPI runs a plain `def` dependency in a
worker thread, which would cost a thread hop per dependency per request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from parley.assistant.runner import Assistant
from parley.auth import Caller, bearer_token, verify_caller
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden
from parley.limits import RateLimiter
from parley.realtime.hub import Hub
from parley.realtime.waits import Waits
from parley.work.manager import WorkManager


def _from_state(name: str) -> Callable[[Request], Awaitable[Any]]:
    """A dependency reading one object the lifespan put on `app.state`."""

    async def get(request: Request) -> Any:
        return getattr(request.app.state, name)

    return get


HubDep = Annotated[Hub, Depends(_from_state("hub"))]
WaitsDep = Annotated[Waits, Depends(_from_state("waits"))]
SettingsDep = Annotated[Settings, Depends(_from_state("settings"))]
DbDep = Annotated[Database, Depends(_from_state("db"))]
AssistantDep = Annotated[Assistant, Depends(_from_state("assistant"))]
LimiterDep = Annotated[RateLimiter, Depends(_from_state("limiter"))]
RunnerDep = Annotated[TurnRunner, Depends(_from_state("runner"))]
WorkDep = Annotated[WorkManager, Depends(_from_state("work"))]


# Declared as a security scheme so the OpenAPI schema (and /docs) knows about bearer auth;
# the checks and their JSON errors stay ours.
_bearer = HTTPBearer(auto_error=False, description="A Parley token: dev-login or `parley token`")


async def _token_caller(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Caller:
    token = credentials.credentials if credentials else bearer_token(authorization)
    return verify_caller(secret=settings.auth_secret, token=token)


TokenCaller = Annotated[Caller, Depends(_token_caller)]


async def _path_caller(user_id: Annotated[str, Path(max_length=64)], caller: TokenCaller) -> Caller:
    """The path's user, which must be the token's: nobody acts for someone else."""
    if user_id != caller.user_id:
        raise Forbidden("This token belongs to another user")
    return caller


# The person or agent acting, for routes where it matters who writes.
CurrentCaller = Annotated[Caller, Depends(_path_caller)]


async def _path_user(caller: CurrentCaller) -> str:
    return caller.user_id


CurrentUser = Annotated[str, Depends(_path_user)]


async def _person(caller: CurrentCaller) -> str:
    """Routes that act as the person themselves (a chat turn, a read position): an agent's
    token would otherwise put words in the person's mouth."""
    if caller.agent is not None:
        raise Forbidden("An agent's token cannot act as the person here", code="agent_not_allowed")
    return caller.user_id


PersonUser = Annotated[str, Depends(_person)]
