"""Signing up, in and out (password, dev sign-in), who am I, and the health check."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Cookie, Request, Response

from parley import addresses
from parley.accounts import invites, reauth, service, sessions, store
from parley.accounts.credentials import Credentials
from parley.accounts.schemas import (
    AccountOut,
    AuthConfig,
    DevLoginOut,
    InviteInfo,
    LoginRequest,
    MeOut,
    PasswordChange,
    SignupRequest,
)
from parley.accounts.store import AccountRecord
from parley.api.deps import CredentialsDep, DbDep, PrincipalDep, SettingsDep, SignedInPerson
from parley.api.errors import ERRORS
from parley.api.web_session import (
    COOKIE,
    check_origin,
    clear_cookie,
    client_address,
    idle,
    lifetime,
    set_cookie,
)
from parley.auth import mint_token, validate_new_user_id
from parley.config import Settings
from parley.db import Database
from parley.errors import NotFound
from parley.schemas import DevLoginRequest, HealthResponse, WorkHealth
from parley.work.cli import availability

router = APIRouter(prefix="/api", tags=["auth"])


_ACCOUNT_OUT = set(AccountOut.model_fields)


def account_out(account: AccountRecord) -> AccountOut:
    """What every sign-in route answers: the account's public fields."""
    return AccountOut(**account.model_dump(include=_ACCOUNT_OUT))


async def sign_in(
    response: Response,
    *,
    request: Request,
    db: Database,
    settings: Settings,
    credentials: Credentials,
    user_id: str,
) -> None:
    """A new web session for the account, in the response's cookie; the session this browser
    had ends (a sign-in is also how a person confirms it is them: accounts/reauth.py)."""
    device = request.headers.get("user-agent", "")
    replacing = request.cookies.get(COOKIE)
    secret = await sessions.start(
        db,
        user_id=user_id,
        device=device,
        lifetime=lifetime(settings),
        idle=idle(settings),
        replacing=replacing,
    )
    if replacing:
        credentials.forget()
    set_cookie(response, request=request, settings=settings, value=secret)


@router.get("/auth/config", response_model=AuthConfig)
async def auth_config(settings: SettingsDep) -> AuthConfig:
    """How people can sign in here (public): what the sign-in page offers."""
    return AuthConfig(
        signup=settings.signup,
        dev_login=settings.dev_login,
        oidc=settings.oidc_enabled,
        oidc_name=(settings.oidc_name or "single sign-on") if settings.oidc_enabled else None,
        email_verification=bool(settings.smtp_url),
    )


@router.post(
    "/auth/signup",
    status_code=201,
    response_model=AccountOut,
    responses=ERRORS(403, 404, 409, 422),
)
async def signup(
    body: SignupRequest,
    request: Request,
    response: Response,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> AccountOut:
    """A new account (open sign-up, or with an admin's invite), signed in at once. The user
    id never holds '@'; an invite's email is the account's (verified), and a different one
    in the body is 403 `invite_email_mismatch`."""
    check_origin(request, settings, required=False)
    account = await service.signup(
        db,
        settings=settings,
        user_id=body.user_id,
        password=body.password,
        email=body.email,
        invite=body.invite,
    )
    await sign_in(
        response,
        request=request,
        db=db,
        settings=settings,
        user_id=account.user_id,
        credentials=credentials,
    )
    return account_out(account)


@router.post("/auth/login", response_model=AccountOut, responses=ERRORS(401, 403, 422, 429))
async def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> AccountOut:
    """Sets the session cookie. `login` with '@' is an account's verified email (never a user
    id), else a user id. Any wrong name, email or password (or an email not verified) is the
    same 401 `invalid_credentials`; repeated failures answer 429 with `Retry-After`."""
    check_origin(request, settings, required=False)
    account = await service.login(
        db,
        settings=settings,
        login=body.login,
        password=body.password,
        address=client_address(request, settings),
    )
    await sign_in(
        response,
        request=request,
        db=db,
        settings=settings,
        user_id=account.user_id,
        credentials=credentials,
    )
    return account_out(account)


@router.post("/auth/logout", status_code=204, responses=ERRORS(403))
async def logout(
    request: Request,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
    session: Annotated[str | None, Cookie(alias=COOKIE, include_in_schema=False)] = None,
) -> Response:
    """Ends this browser's session (its row is deleted) and clears the cookie."""
    response = Response(status_code=204)
    if session:
        check_origin(request, settings, required=True)
        await sessions.end(db, secret=session)
        credentials.forget()
    clear_cookie(response, request=request, settings=settings)
    return response


@router.get("/auth/me", response_model=MeOut, responses=ERRORS(401, 403))
async def me(principal: PrincipalDep, db: DbDep) -> MeOut:
    caller = principal.caller
    account = await store.get(db, user_id=caller.user_id)
    return MeOut(
        user_id=caller.user_id,
        email=account.email if account else None,
        email_verified=account.email_verified if account else False,
        sso_linked=account is not None and account.oidc_subject is not None,
        is_admin=principal.is_admin,
        agent=caller.agent,
        via=principal.via,
    )


@router.post("/auth/password", status_code=204, responses=ERRORS(401, 403, 404, 422, 429))
async def change_password(
    body: PasswordChange,
    request: Request,
    principal: SignedInPerson,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> Response:
    """Sets a new password and ends the person's other web sessions. A wrong current
    password counts against the sign-in limits (429 with `Retry-After` past them). An
    account without a password sets one only within PARLEY_REAUTH_MINUTES of signing in
    (403 `reauth_required`)."""
    user_id = principal.caller.user_id
    await service.change_password(
        db,
        settings=settings,
        user_id=user_id,
        current_password=body.current_password,
        new_password=body.new_password,
        address=client_address(request, settings),
        recent=reauth.is_recent(principal, settings),
    )
    await sessions.end_others(db, user_id=user_id, keep=principal.session_id)
    credentials.forget()
    return Response(status_code=204)


@router.get("/auth/invites/{token}", response_model=InviteInfo, responses=ERRORS(404))
async def invite_info(token: str, db: DbDep) -> InviteInfo:
    """What an invite link is for (public: the token is the secret); 404 once used."""
    invite = await invites.find(db, token=token)
    return InviteInfo(email=invite.email, user_id=invite.user_id)


@router.post("/auth/dev-login", response_model=DevLoginOut, responses=ERRORS(403, 404, 422))
async def dev_login(
    body: DevLoginRequest,
    request: Request,
    response: Response,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> DevLoginOut:
    """Signs in as any name (making its account if it has none) when PARLEY_DEV_LOGIN=1, from
    this machine only; 404 otherwise. Sets the session cookie; the token is for scripts."""
    if not settings.dev_login or not addresses.is_loopback(client_address(request, settings)):
        raise NotFound("Dev login is disabled")
    check_origin(request, settings, required=False)
    user_id = validate_new_user_id(body.user_id.strip())
    account = await store.ensure(db, user_id=user_id)
    if account.disabled:
        raise NotFound("Dev login is disabled for this account")
    await sign_in(
        response,
        request=request,
        db=db,
        settings=settings,
        user_id=user_id,
        credentials=credentials,
    )
    token = mint_token(
        secret=settings.auth_secret,
        user_id=user_id,
        ttl_seconds=settings.token_ttl,
    )
    return DevLoginOut(token=token, user_id=user_id)


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
