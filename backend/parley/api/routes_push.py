"""Web Push: the server's public key, a person's devices, and what notifies them."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Response
from fastapi.responses import RedirectResponse

from parley.api.deps import DbDep, PersonUser, PushDep, SettingsDep
from parley.api.errors import AUTHED, ERRORS
from parley.config import Settings
from parley.push import subscriptions
from parley.push.schemas import (
    MuteIn,
    MuteOut,
    PreferencesOut,
    PreferencesPatch,
    PushSubscriptionIn,
    PushSubscriptionOut,
    VapidKeyOut,
)
from parley.questions import escalation

router = APIRouter(tags=["push"])


@router.get("/api/push/vapid-public-key", response_model=VapidKeyOut)
async def vapid_public_key(push: PushDep) -> VapidKeyOut:
    """The key a browser subscribes with (`applicationServerKey`); the same on every
    instance."""
    return VapidKeyOut(public_key=push.vapid.public_key)


@router.post(
    "/api/{user_id}/push-subscriptions",
    response_model=PushSubscriptionOut,
    status_code=201,
    responses=ERRORS(*AUTHED),
)
async def add_subscription(
    body: PushSubscriptionIn,
    user_id: PersonUser,
    db: DbDep,
    settings: SettingsDep,
    response: Response,
) -> PushSubscriptionOut:
    """Notify this device: the browser's PushSubscription JSON (`endpoint`, `keys.p256dh`,
    `keys.auth`) and an optional `label`. Posting the same endpoint again renews its keys
    (200). An endpoint at a host that is not a known push service is 422
    (`push_service_not_allowed`)."""
    found, created = await subscriptions.subscribe(
        db,
        user_id=user_id,
        endpoint=body.endpoint,
        p256dh=body.keys.p256dh,
        auth=body.keys.auth,
        label=body.label,
        allowed=settings.push_allowed_hosts,
    )
    if not created:
        response.status_code = 200
    return PushSubscriptionOut.model_validate(found)


@router.get(
    "/api/{user_id}/push-subscriptions",
    response_model=list[PushSubscriptionOut],
    responses=ERRORS(*AUTHED),
)
async def list_subscriptions(user_id: PersonUser, db: DbDep) -> list[PushSubscriptionOut]:
    """The person's devices that receive notifications, oldest first."""
    found = await subscriptions.list_subscriptions(db, user_id=user_id)
    return [PushSubscriptionOut.model_validate(s) for s in found]


@router.delete(
    "/api/{user_id}/push-subscriptions/{subscription_id}",
    status_code=204,
    responses=ERRORS(*AUTHED),
)
async def remove_subscription(subscription_id: int, user_id: PersonUser, db: DbDep) -> Response:
    """Stop notifying this device; pushes not yet sent to it are dropped."""
    await subscriptions.unsubscribe(db, user_id=user_id, subscription_id=subscription_id)
    return Response(status_code=204)


@router.get(
    "/api/{user_id}/notification-preferences",
    response_model=PreferencesOut,
    responses=ERRORS(*AUTHED),
)
async def get_preferences(user_id: PersonUser, db: DbDep, settings: SettingsDep) -> PreferencesOut:
    """Which kinds notify (questions and failed runs by default; inbox messages only when
    turned on), which conversations are muted, and whether this server sends email at all."""
    found = await subscriptions.preferences(db, user_id=user_id)
    return _preferences_out(found, settings)


def _preferences_out(found: object, settings: Settings) -> PreferencesOut:
    out = PreferencesOut.model_validate(found)
    out.email_available = settings.smtp_url is not None
    return out


@router.patch(
    "/api/{user_id}/notification-preferences",
    response_model=PreferencesOut,
    responses=ERRORS(*AUTHED),
)
async def patch_preferences(
    body: PreferencesPatch, user_id: PersonUser, db: DbDep, settings: SettingsDep
) -> PreferencesOut:
    """Turn kinds on or off; kinds not named keep their setting."""
    found = await subscriptions.set_preferences(
        db, user_id=user_id, changes=body.model_dump(exclude_none=True)
    )
    return _preferences_out(found, settings)


@router.put(
    "/api/{user_id}/conversations/{conversation_id}/mute",
    response_model=MuteOut,
    responses=ERRORS(*AUTHED),
)
async def set_mute(conversation_id: int, body: MuteIn, user_id: PersonUser, db: DbDep) -> MuteOut:
    """Mute (`{"muted": true}`) or unmute a conversation: nothing in a muted one notifies."""
    muted = await subscriptions.set_muted(
        db, user_id=user_id, conversation_id=conversation_id, muted=body.muted
    )
    return MuteOut(conversation_id=conversation_id, muted=muted)


@router.get("/api/question-links/{token}", status_code=303, responses=ERRORS(404))
async def open_question_link(token: str, db: DbDep, settings: SettingsDep) -> RedirectResponse:
    """An emailed reminder's link: good once and for a short while, it opens the question in
    the web UI (which asks the person to sign in first if they are not; the link itself
    signs nobody in). Used or expired: 404 (`link_expired`). `via=email_link` tells the web
    UI to say so when it answers (the audit trail's channel)."""
    found = await escalation.open_link(db, token=token)
    target = (
        f"{settings.web_origin}/c/{int(found['conversation_id'])}"
        f"?question={quote(str(int(found['question_id'])))}&via=email_link"
    )
    return RedirectResponse(target, status_code=303)
