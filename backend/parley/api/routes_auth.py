"""Sign-in for local use, and the unauthenticated health check."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from parley.api.deps import DbDep, SettingsDep
from parley.api.errors import ERRORS
from parley.auth import mint_token, validate_user_id
from parley.errors import NotFound
from parley.schemas import DevLoginRequest, HealthResponse, TokenResponse, WorkHealth
from parley.work.cli import availability

router = APIRouter(prefix="/api", tags=["auth"])


@router.post("/auth/dev-login", response_model=TokenResponse, responses=ERRORS(404, 422))
async def dev_login(body: DevLoginRequest, settings: SettingsDep) -> TokenResponse:
    """A token for any name, when PARLEY_DEV_LOGIN=1 (local use only); 404 otherwise."""
    if not settings.dev_login:
        raise NotFound("Dev login is disabled")
    user_id = validate_user_id(body.user_id.strip())
    token = mint_token(secret=settings.auth_secret, user_id=user_id, ttl_seconds=settings.token_ttl)
    return TokenResponse(token=token, user_id=user_id)


@router.get("/health", response_model=HealthResponse)
async def health(db: DbDep, settings: SettingsDep) -> HealthResponse:
    database_ok = await db.ping()
    work = await asyncio.to_thread(availability, settings)  # looks at files
    return HealthResponse(
        status="ok" if database_ok else "degraded",
        database="ok" if database_ok else "unavailable",
        model=settings.model_name,
        offline_model=settings.offline_model,
        dev_login=settings.dev_login,
        work=WorkHealth(available=work.usable, reason=work.reason),
    )
