"""What an admin does: invite people, disable and re-enable accounts."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Response

from parley.accounts import invites, sessions, store
from parley.accounts.schemas import InviteCreate, InviteOut
from parley.api.deps import AdminPrincipal, CredentialsDep, DbDep, PathUserId, SettingsDep
from parley.api.errors import ERRORS
from parley.auth import validate_user_id
from parley.errors import NotFound

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.post("/invites", status_code=201, response_model=InviteOut, responses=ERRORS(401, 403, 422))
async def create_invite(
    body: InviteCreate, admin: AdminPrincipal, db: DbDep, settings: SettingsDep
) -> InviteOut:
    """A one-time sign-up link (`<web origin>/invite/<token>`), valid PARLEY_INVITE_DAYS."""
    invite, token = await invites.create(
        db,
        created_by=admin.caller.user_id,
        lifetime=timedelta(days=settings.invite_days),
        email=body.email,
        user_id=body.user_id,
        is_admin=body.is_admin,
    )
    return InviteOut(
        id=invite.id, url=invites.link(settings.web_origin, token), expires_at=invite.expires_at
    )


@router.post("/users/{user_id}/disable", status_code=204, responses=ERRORS(401, 403, 404, 422))
async def disable_user(
    user_id: PathUserId, _admin: AdminPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    """The account is refused everywhere at once: its sessions end, its keys and tokens fail."""
    await store.set_disabled(db, user_id=validate_user_id(user_id), disabled=True)
    credentials.forget()
    return Response(status_code=204)


@router.post("/users/{user_id}/enable", status_code=204, responses=ERRORS(401, 403, 404, 422))
async def enable_user(
    user_id: PathUserId, _admin: AdminPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    await store.set_disabled(db, user_id=validate_user_id(user_id), disabled=False)
    credentials.forget()
    return Response(status_code=204)


@router.delete("/users/{user_id}/sessions", status_code=204, responses=ERRORS(401, 403, 404, 422))
async def end_user_sessions(
    user_id: str, admin: AdminPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    """Signs the person out of every browser (not disabled: they may sign in again). An
    admin's own current session is kept."""
    account = await store.get(db, user_id=validate_user_id(user_id))
    if account is None:
        raise NotFound("No such account")
    await sessions.end_others(db, user_id=account.user_id, keep=admin.session_id)
    credentials.forget()
    return Response(status_code=204)


@router.delete("/all-sessions", status_code=204, responses=ERRORS(401, 403))
async def end_all_sessions(
    admin: AdminPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    """Signs everyone out of every browser, but this admin's current session."""
    await sessions.end_everyone(db, keep=admin.session_id)
    credentials.forget()
    return Response(status_code=204)
