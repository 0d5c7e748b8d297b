"""Sign-in with the team's OpenID provider. Both routes are browser navigations through the
web UI's origin (its proxy forwards /api), which is where the provider sends people back."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Cookie, Query, Request
from fastapi.responses import RedirectResponse

from parley.accounts.oidc import OidcFailed, Provider
from parley.api.deps import DbDep, SettingsDep
from parley.api.errors import ERRORS
from parley.api.routes_auth import sign_in
from parley.errors import NotFound, ParleyError

router = APIRouter(prefix="/api/auth/oidc", tags=["auth"])

FLOW_COOKIE = "parley_oidc"
FLOW_PATH = "/api/auth"


def _provider(request: Request, settings: SettingsDep) -> Provider:
    if not settings.oidc_enabled:
        raise NotFound("Sign-in with an identity provider is not configured")
    provider: Provider | None = getattr(request.app.state, "oidc", None)
    if provider is None:
        provider = request.app.state.oidc = Provider(settings)
    return provider


@router.get(
    "/login",
    status_code=302,
    response_class=RedirectResponse,
    responses={**ERRORS(404), 302: {"description": "To the identity provider"}},
)
async def oidc_login(
    request: Request,
    db: DbDep,
    settings: SettingsDep,
    next: Annotated[str | None, Query(max_length=2000)] = None,
    invite: Annotated[str | None, Query(max_length=200)] = None,
) -> RedirectResponse:
    """Sends the browser to the provider (code flow, PKCE S256, state, nonce). `next`: where
    to land afterwards (a path on this site); `invite`: an invite token to sign up with."""
    started = await _provider(request, settings).start(db, next_path=next, invite=invite)
    response = RedirectResponse(started.url, status_code=302)
    response.set_cookie(
        FLOW_COOKIE,
        started.binder,
        max_age=600,
        path=FLOW_PATH,
        httponly=True,
        samesite="lax",
        secure=settings.web_origin.startswith("https://"),
    )
    return response


@router.get(
    "/callback",
    status_code=302,
    response_class=RedirectResponse,
    responses={**ERRORS(404), 302: {"description": "To `next`, or `/?auth_error=<code>`"}},
)
async def oidc_callback(
    request: Request,
    db: DbDep,
    settings: SettingsDep,
    code: Annotated[str | None, Query(max_length=4000)] = None,
    state: Annotated[str | None, Query(max_length=200)] = None,
    error: Annotated[str | None, Query(max_length=200)] = None,
    binder: Annotated[str | None, Cookie(alias=FLOW_COOKIE, include_in_schema=False)] = None,
) -> RedirectResponse:
    """Where the provider sends the browser back: signs in (session cookie) and goes on to
    `next`; on failure, to `/?auth_error=<code>`."""
    provider = _provider(request, settings)
    try:
        if error or not code or not state:
            raise OidcFailed(f"The provider did not sign you in ({error or 'no code'})")
        finished = await provider.finish(
            db, code=code, state=state, binder=binder, signup=settings.signup
        )
    except ParleyError as exc:
        response = RedirectResponse(f"/?auth_error={quote(exc.code)}", status_code=302)
    else:
        response = RedirectResponse(finished.next, status_code=302)
        await sign_in(response, request=request, db=db, settings=settings, user_id=finished.user_id)
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH, httponly=True, samesite="lax")
    return response
