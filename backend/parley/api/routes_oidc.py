"""Sign-in with the team's OpenID provider. The login and callback routes are browser
navigations through the web UI's origin (its proxy forwards /api), which is where the
provider sends people back; linking an identity to the signed-in account starts with a POST
from the UI (a cookie-authenticated write: the web UI's origin only)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Cookie, Query, Request, Response
from fastapi.responses import RedirectResponse

from parley.accounts import store
from parley.accounts.oidc import LinkFailed, OidcFailed, Provider
from parley.accounts.schemas import OidcLinkRequest, OidcLinkStarted
from parley.api.deps import CredentialsDep, DbDep, OidcDep, RecentPerson, SettingsDep
from parley.api.errors import AUTHED, ERRORS
from parley.api.routes_auth import sign_in
from parley.api.web_session import COOKIE
from parley.config import Settings
from parley.errors import NotFound, ParleyError

router = APIRouter(prefix="/api/auth/oidc", tags=["auth"])

FLOW_COOKIE = "parley_oidc"
FLOW_PATH = "/api/auth"


def _provider(provider: Provider | None) -> Provider:
    if provider is None:
        raise NotFound("Sign-in with an identity provider is not configured")
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
    oidc: OidcDep,
    next: Annotated[str | None, Query(max_length=2000)] = None,
    invite: Annotated[str | None, Query(max_length=200)] = None,
    reauth: bool = False,
) -> RedirectResponse:
    """Sends the browser to the provider (code flow, PKCE S256, state, nonce). `next`: where
    to land afterwards (a path on this site); `invite`: an invite token to sign up with;
    `reauth=true`: the provider must authenticate the person afresh (`prompt=login`,
    `max_age=0`, its `auth_time` checked), which is how someone who signs in only this way
    confirms it is them."""
    started = await _provider(oidc).start(db, next_path=next, invite=invite, fresh=reauth)
    response = RedirectResponse(started.url, status_code=302)
    _bind(response, started.binder, settings)
    return response


def _bind(response: Response, binder: str, settings: Settings) -> None:
    """The flow's second secret, in this browser only."""
    response.set_cookie(
        FLOW_COOKIE,
        binder,
        max_age=600,
        path=FLOW_PATH,
        httponly=True,
        samesite="lax",
        secure=settings.web_origin.startswith("https://"),
    )


@router.post(
    "/link",
    response_model=OidcLinkStarted,
    responses=ERRORS(*AUTHED, 409),
)
async def oidc_link(
    body: OidcLinkRequest,
    request: Request,
    response: Response,
    principal: RecentPerson,
    db: DbDep,
    settings: SettingsDep,
    oidc: OidcDep,
) -> OidcLinkStarted:
    """Starts linking a single sign-on identity to the signed-in account: the UI sends the
    browser to `redirect_to` (the provider), which comes back to the callback, which links
    the identity (refused if it is another account's) and returns to `next` with
    `?sso_link=linked` or `?sso_link=<error code>`. 409 `sso_already_linked` when the
    account has one; 403 `reauth_required` without a sign-in within PARLEY_REAUTH_MINUTES."""
    provider = _provider(oidc)
    user_id = principal.caller.user_id
    account = await store.get(db, user_id=user_id)
    if account is None:
        raise NotFound("This user has no account", code="no_account")
    if account.oidc_subject is not None:
        raise ParleyError(
            "This account is already linked to a single sign-on identity",
            code="sso_already_linked",
            status=409,
        )
    started = await provider.start(db, next_path=body.next, invite=None, link_to=user_id)
    _bind(response, started.binder, settings)
    return OidcLinkStarted(redirect_to=started.url)


def _with(path: str, **params: str) -> str:
    """`path` (a path on this site) with query parameters added (before any fragment)."""
    path, hash_, fragment = path.partition("#")
    return f"{path}{'&' if '?' in path else '?'}{urlencode(params)}{hash_}{fragment}"


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
    credentials: CredentialsDep,
    oidc: OidcDep,
    code: Annotated[str | None, Query(max_length=4000)] = None,
    state: Annotated[str | None, Query(max_length=200)] = None,
    error: Annotated[str | None, Query(max_length=200)] = None,
    binder: Annotated[str | None, Cookie(alias=FLOW_COOKIE, include_in_schema=False)] = None,
    session: Annotated[str | None, Cookie(alias=COOKIE, include_in_schema=False)] = None,
) -> RedirectResponse:
    """Where the provider sends the browser back: signs in (session cookie) and goes on to
    `next` (with `auth_notice=sso_new_account` when it made a new account although one here
    has the identity's user name or email); on failure, to `/?auth_error=<code>`. A link
    flow signs nobody in: it goes on to `next` with `sso_link=linked` or `sso_link=<code>`."""
    provider = _provider(oidc)
    try:
        if error or not code or not state:
            raise OidcFailed(f"The provider did not sign you in ({error or 'no code'})")
        finished = await provider.finish(
            db,
            code=code,
            state=state,
            binder=binder,
            signup=settings.signup,
            signed_in=await _signed_in(credentials, session),
        )
    except LinkFailed as exc:
        response = RedirectResponse(_with("/", sso_link=exc.code), status_code=302)
    except ParleyError as exc:
        response = RedirectResponse(f"/?auth_error={quote(exc.code)}", status_code=302)
    else:
        if finished.linked:
            response = RedirectResponse(_with(finished.next, sso_link="linked"), status_code=302)
        else:
            target = finished.next
            if finished.notice:
                target = _with(target, auth_notice=finished.notice)
            response = RedirectResponse(target, status_code=302)
            await sign_in(
                response,
                request=request,
                db=db,
                settings=settings,
                user_id=finished.user_id,
                credentials=credentials,
            )
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH, httponly=True, samesite="lax")
    return response


async def _signed_in(credentials: CredentialsDep, session: str | None) -> str | None:
    """The person this browser's session cookie names, if any (and if a person's)."""
    if not session:
        return None
    try:
        principal = await credentials.session(session)
    except ParleyError:  # ended, expired, disabled
        return None
    return principal.caller.user_id if principal.caller.agent is None else None
