"""The authenticator app (TOTP) as a second factor: setting it up and turning it off in
Account (each needs a recent sign-in), and the second step of a password sign-in."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from parley.accounts import second_factor
from parley.accounts.schemas import (
    AccountOut,
    RecoveryCodesOut,
    SecondFactorCode,
    SecondFactorLogin,
    SecondFactorSetupOut,
    SecondFactorStatusOut,
)
from parley.api.deps import CredentialsDep, DbDep, RecentPerson, SettingsDep, SignedInPerson
from parley.api.errors import ERRORS
from parley.api.routes_auth import account_out, sign_in
from parley.api.web_session import check_origin, client_address

router = APIRouter(prefix="/api/auth", tags=["auth"])


@router.get("/second-factor", response_model=SecondFactorStatusOut, responses=ERRORS(401, 403))
async def status(person: SignedInPerson, db: DbDep) -> SecondFactorStatusOut:
    found = await second_factor.status(db, user_id=person.caller.user_id)
    return SecondFactorStatusOut(
        enabled=found.enabled, pending=found.pending, recovery_codes_left=found.recovery_codes_left
    )


@router.post(
    "/second-factor",
    status_code=201,
    response_model=SecondFactorSetupOut,
    responses=ERRORS(401, 403, 404, 409),
)
async def begin(person: RecentPerson, db: DbDep) -> SecondFactorSetupOut:
    """A new secret for an authenticator app: its otpauth:// URI and the base32 secret,
    shown only now. Nothing changes at sign-in until a code confirms it. Needs a sign-in
    within PARLEY_REAUTH_MINUTES (403 `reauth_required`); 409 `second_factor_on` when on."""
    setup = await second_factor.begin(db, user_id=person.caller.user_id)
    return SecondFactorSetupOut(secret=setup.secret, otpauth_uri=setup.otpauth_uri)


@router.post(
    "/second-factor/confirm",
    response_model=RecoveryCodesOut,
    responses=ERRORS(401, 403, 409, 422),
)
async def confirm(body: SecondFactorCode, person: RecentPerson, db: DbDep) -> RecoveryCodesOut:
    """Turns the app on with a code it shows; answers the ten recovery codes, shown only
    now. 422 `invalid_code` for a wrong code."""
    codes = await second_factor.confirm(db, user_id=person.caller.user_id, code=body.code)
    return RecoveryCodesOut(recovery_codes=codes)


@router.delete("/second-factor", status_code=204, responses=ERRORS(401, 403))
async def disable(person: RecentPerson, db: DbDep) -> Response:
    """Turns the app off (its recovery codes go with it). Needs a recent sign-in."""
    await second_factor.disable(db, user_id=person.caller.user_id)
    return Response(status_code=204)


@router.post(
    "/login/second-factor", response_model=AccountOut, responses=ERRORS(401, 403, 422, 429)
)
async def login_second_factor(
    body: SecondFactorLogin,
    request: Request,
    response: Response,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> AccountOut:
    """The second step of a password sign-in with an authenticator app on: the `challenge`
    of the 401 `second_factor_required` and a code of the app (or a recovery code). Sets the
    session cookie. A wrong code is 401 `invalid_code` and counts against the sign-in limits
    (429 with `Retry-After` past them); an unknown, used or expired challenge is 401
    `challenge_expired`."""
    check_origin(request, settings, required=False)
    account = await second_factor.finish(
        db,
        settings=settings,
        challenge=body.challenge,
        code=body.code,
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
