"""The OAuth consent page's routes, and a person's connected apps (the OAuth clients acting as
their agents), listed and revoked like agent keys. The authorization server's own endpoints
(`/authorize`, `/token`, …) are the MCP SDK's handlers, in `parley.oauth.provider`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Path, Response
from fastapi.responses import RedirectResponse

from parley.api.deps import CredentialsDep, DbDep, PersonPrincipal, SettingsDep, SignedInPerson
from parley.api.errors import AUTHED, ERRORS
from parley.oauth import apps, consent
from parley.oauth.schemas import ConnectedAppOut, ConsentDecision, ConsentRequest

router = APIRouter(tags=["oauth"])

RequestSecret = Annotated[str, Path(max_length=100)]


@router.get(
    "/api/oauth/requests/{request}", response_model=ConsentRequest, responses=ERRORS(*AUTHED)
)
async def show_request(
    request: RequestSecret, principal: SignedInPerson, db: DbDep
) -> ConsentRequest:
    """The pending authorization the consent page asks the signed-in person about."""
    found = await consent.pending(db, secret=request)
    return ConsentRequest(
        client_id=found.client_id,
        client_name=found.client_name,
        client_host=found.client_host,
        redirect_uri=found.redirect_uri,
        redirect_kind=found.redirect_kind,
        agent=found.agent,
        resource=found.resource,
    )


@router.post(
    "/api/oauth/requests/{request}",
    status_code=303,
    response_class=RedirectResponse,
    responses={
        303: {
            "description": "To the client: its redirect URI with code, state and iss, or"
            " with error=access_denied"
        },
        **ERRORS(400, *AUTHED),
    },
)
async def decide_request(
    request: RequestSecret,
    form: Annotated[ConsentDecision, Form()],
    principal: SignedInPerson,
    db: DbDep,
    settings: SettingsDep,
) -> RedirectResponse:
    """Allow (the client then acts as `agent`, never as the person) or deny, once. The page
    posts a plain form and the answer is the redirect itself, so the web UI never takes a URL
    from a response and navigates to it; only a redirect URI the rules accept is used."""
    target = await consent.decide(
        db,
        secret=request,
        user_id=principal.caller.user_id,
        allow=form.decision == "allow",
        agent=form.agent,
        issuer=settings.public_url.rstrip("/"),
    )
    return RedirectResponse(target, status_code=303, headers={"Cache-Control": "no-store"})


@router.get(
    "/api/{user_id}/connected-apps",
    response_model=list[ConnectedAppOut],
    responses=ERRORS(*AUTHED),
)
async def list_connected_apps(principal: PersonPrincipal, db: DbDep) -> list[ConnectedAppOut]:
    return list(await apps.listed(db, user_id=principal.caller.user_id))


@router.delete("/api/{user_id}/connected-apps/{app_id}", status_code=204, responses=ERRORS(*AUTHED))
async def revoke_connected_app(
    app_id: int, principal: PersonPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    """Its tokens are refused by `/mcp` on every instance within a second."""
    await apps.revoke(db, user_id=principal.caller.user_id, app_id=app_id)
    credentials.forget()
    return Response(status_code=204)
