"""Passkey ceremonies: a signed-in person adds one; anyone signs in with one alone."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request, Response

from parley.accounts import passkeys, store
from parley.accounts.schemas import AccountOut, PasskeyLogin, PasskeyOut, PasskeyVerify
from parley.api.deps import CredentialsDep, DbDep, RecentPerson, SettingsDep, SignedInPerson
from parley.api.errors import ERRORS
from parley.api.routes_auth import account_out, sign_in
from parley.api.web_session import check_origin
from parley.errors import Unauthorized

router = APIRouter(prefix="/api/auth/passkeys", tags=["passkeys"])


def _rp(request: Request, settings: SettingsDep) -> passkeys.RelyingParty:
    return passkeys.relying_party(request.headers.get("origin"), settings.web_origins)


@router.post("/register/options", response_model=dict[str, Any], responses=ERRORS(401, 403))
async def register_options(
    request: Request, person: RecentPerson, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    """PublicKeyCredentialCreationOptions (JSON) for `navigator.credentials.create`. Needs a
    sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`)."""
    options = await passkeys.registration_options(
        db, user_id=person.caller.user_id, rp=_rp(request, settings)
    )
    result: dict[str, Any] = json.loads(options)
    return result


@router.post(
    "/register/verify",
    status_code=201,
    response_model=PasskeyOut,
    responses=ERRORS(401, 403, 409, 422),
)
async def register_verify(body: PasskeyVerify, person: SignedInPerson, db: DbDep) -> PasskeyOut:
    """Stores the new passkey (the browser's registration response, as JSON)."""
    found = await passkeys.register(
        db, user_id=person.caller.user_id, credential=body.credential, name=body.name
    )
    return found


@router.post("/login/options", response_model=dict[str, Any], responses=ERRORS(403))
async def login_options(request: Request, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    """PublicKeyCredentialRequestOptions (JSON) for a discoverable passkey."""
    check_origin(request, settings, required=False)
    result: dict[str, Any] = json.loads(
        await passkeys.authentication_options(db, rp=_rp(request, settings))
    )
    return result


@router.post("/login/verify", response_model=AccountOut, responses=ERRORS(401, 403, 422))
async def login_verify(
    body: PasskeyLogin,
    request: Request,
    response: Response,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> AccountOut:
    """Signs in the passkey's owner: sets the session cookie."""
    check_origin(request, settings, required=False)
    user_id = await passkeys.authenticate(db, credential=body.credential)
    account = await store.get(db, user_id=user_id)
    if account is None or account.disabled:
        raise Unauthorized("This account cannot sign in", code="invalid_credentials")
    await sign_in(
        response,
        request=request,
        db=db,
        settings=settings,
        user_id=user_id,
        credentials=credentials,
    )
    return account_out(account)
