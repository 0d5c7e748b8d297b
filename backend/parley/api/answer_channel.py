"""How a person's answer came, for the audit trail: one dependency for every route that
answers a question (`.../answer`, "Always allow this"), so a notification's button and an
emailed link are recorded the same way whichever of them the person pressed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import Depends, Header

from parley.api.deps import DbDep, PathPrincipal
from parley.push import subscriptions


@dataclass(frozen=True, slots=True)
class AnswerChannel:
    via: str  # push_action | email_link | web | rest
    device: int | None  # the person's own push subscription the answer came from
    session: int | None  # the web session, for the web UI


async def _answer_channel(
    principal: PathPrincipal,
    db: DbDep,
    x_parley_device: Annotated[
        int | None,
        Header(description="The push subscription whose notification answered (audit)"),
    ] = None,
    x_parley_via: Annotated[
        Literal["email_link"] | None,
        Header(description="The web UI answering a question an emailed link opened (audit)"),
    ] = None,
) -> AnswerChannel:
    """A notification's button names its device (`X-Parley-Device`), kept only when it is
    one of the person's own (another's, or none, is recorded as no device); the web UI
    names an emailed link (`X-Parley-Via: email_link`); else how the request was signed."""
    device = None
    if x_parley_device is not None:
        device = await subscriptions.owned_subscription(
            db, user_id=principal.caller.user_id, subscription_id=x_parley_device
        )
    if x_parley_device is not None:
        via = "push_action"
    elif x_parley_via is not None:
        via = x_parley_via
    else:
        via = "web" if principal.via == "session" else "rest"
    return AnswerChannel(via=via, device=device, session=principal.session_id)


AnswerChannelDep = Annotated[AnswerChannel, Depends(_answer_channel)]
