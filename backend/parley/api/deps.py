"""Dependencies as `Annotated` aliases: routes declare what they need, never how to get it.

They are `async def` although they never await: FastAPI runs a plain `def` dependency in a
worker thread, which would cost a thread hop per dependency per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from parley.assistant.runner import Assistant
from parley.auth import bearer_token, verify_token
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database
from parley.errors import Forbidden
from parley.limits import RateLimiter
from parley.work.manager import WorkManager


async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def _assistant(request: Request) -> Assistant:
    assistant: Assistant = request.app.state.assistant
    return assistant


async def _runner(request: Request) -> TurnRunner:
    runner: TurnRunner = request.app.state.runner
    return runner


async def _limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.limiter
    return limiter


async def _work(request: Request) -> WorkManager:
    work: WorkManager = request.app.state.work
    return work


SettingsDep = Annotated[Settings, Depends(_settings)]
DbDep = Annotated[Database, Depends(_db)]
AssistantDep = Annotated[Assistant, Depends(_assistant)]
LimiterDep = Annotated[RateLimiter, Depends(_limiter)]
RunnerDep = Annotated[TurnRunner, Depends(_runner)]
WorkDep = Annotated[WorkManager, Depends(_work)]


# Declared as a security scheme so the OpenAPI schema (and /docs) knows about bearer auth;
# the checks and their JSON errors stay ours.
_bearer = HTTPBearer(auto_error=False, description="A Parley token: dev-login or `parley token`")


async def _token_user(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> str:
    token = credentials.credentials if credentials else bearer_token(authorization)
    return verify_token(secret=settings.auth_secret, token=token)


TokenUser = Annotated[str, Depends(_token_user)]


async def _path_user(user_id: Annotated[str, Path(max_length=64)], token_user: TokenUser) -> str:
    """The path's user, which must be the token's: nobody acts for someone else."""
    if user_id != token_user:
        raise Forbidden("This token belongs to another user")
    return user_id


CurrentUser = Annotated[str, Depends(_path_user)]
