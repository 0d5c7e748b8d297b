"""The web UI's device page: the person enters the code a terminal shows (`parley connect`),
sees what asks, and approves or denies it. Both are POSTs: the code stays out of URLs and
logs, each is a counted guess, and a cookie's POST must come from the web UI's origin. The
program's side (device authorization, polling) is the authorization server's,
`parley.oauth.device_grant`."""

from __future__ import annotations

from fastapi import APIRouter, Request

from parley.accounts import reauth
from parley.api.deps import DbDep, SettingsDep, SignedInPerson
from parley.api.errors import AUTHED, ERRORS
from parley.api.web_session import client_address
from parley.device import codes, flow
from parley.device.schemas import (
    DeviceCodeIn,
    DeviceDecisionIn,
    DeviceDecisionOut,
    DeviceRequestOut,
)

router = APIRouter(prefix="/api/device", tags=["oauth"])


@router.post("/lookup", response_model=DeviceRequestOut, responses=ERRORS(404, 422, 429, *AUTHED))
async def lookup(
    body: DeviceCodeIn,
    request: Request,
    principal: SignedInPerson,
    db: DbDep,
    settings: SettingsDep,
) -> DeviceRequestOut:
    """What the code asks for, and whether approving needs a fresh sign-in. A wrong code is
    a guess counted against the person and their address (429 past the free ones)."""
    found = await flow.show(
        db,
        settings=settings,
        principal=principal,
        user_code=body.user_code,
        address=client_address(request, settings),
    )
    recent = reauth.is_recent(principal, settings)
    return DeviceRequestOut(
        application=codes.APPLICATIONS.get(found.application, found.application),
        machine=found.machine,
        created_at=found.created_at,
        expires_at=found.expires_at,
        reauth_required=not recent,
        reauth_methods=[]
        if recent
        else await reauth.methods(db, user_id=principal.caller.user_id, settings=settings),
    )


@router.post(
    "/decision", response_model=DeviceDecisionOut, responses=ERRORS(404, 422, 429, *AUTHED)
)
async def decide(
    body: DeviceDecisionIn,
    request: Request,
    principal: SignedInPerson,
    db: DbDep,
    settings: SettingsDep,
) -> DeviceDecisionOut:
    """Approve (the terminal's next poll gets a token for this person, once) or deny.
    Approving needs a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`, the code
    left waiting)."""
    found = await flow.decide(
        db,
        settings=settings,
        principal=principal,
        user_code=body.user_code,
        allow=body.decision == "allow",
        address=client_address(request, settings),
    )
    return DeviceDecisionOut(
        decision=body.decision,
        application=codes.APPLICATIONS.get(found.application, found.application),
        machine=found.machine,
    )
