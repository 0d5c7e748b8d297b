"""The push API's bodies."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from parley.push.subscriptions import (
    AUTH_PATTERN,
    MAX_ENDPOINT,
    MAX_LABEL,
    P256DH_PATTERN,
    endpoint_pattern,
)
from parley.schemas import RequestBody, Text, Whole
from parley.stated import FromSettings, stated

# A URL at a push service this server sends to (PARLEY_PUSH_ALLOWED_HOSTS: the schema says
# this server's); any other is a 422 `push_service_not_allowed`.
Endpoint = Annotated[
    Text, FromSettings(lambda s: {"pattern": endpoint_pattern(s.push_allowed_hosts)})
]


class PushKeys(RequestBody):
    """The browser's own object (as `PushSubscriptionIn`): a field a browser adds is not
    ours to refuse."""

    model_config = ConfigDict(extra="ignore")

    p256dh: Annotated[Text, stated(pattern=P256DH_PATTERN)] = Field(
        max_length=200, description="The browser's P-256 public key (65 bytes, base64url)"
    )
    auth: Annotated[Text, stated(pattern=AUTH_PATTERN)] = Field(
        max_length=100, description="The browser's auth secret (16 bytes, base64url)"
    )


class PushSubscriptionIn(RequestBody):
    """The browser's `PushSubscription.toJSON()`, plus an optional name for the device."""

    model_config = ConfigDict(extra="ignore")

    endpoint: Endpoint = Field(min_length=1, max_length=MAX_ENDPOINT)
    keys: PushKeys
    expirationTime: Whole | None = None
    label: Text = Field(default="", max_length=MAX_LABEL, description="e.g. 'Phone', 'Work laptop'")


class PushSubscriptionOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    endpoint: str
    label: str
    created_at: datetime
    last_sent_at: datetime | None


class VapidKeyOut(BaseModel):
    public_key: str = Field(description="applicationServerKey for pushManager.subscribe")


class PreferencesOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    question: bool = Field(description="Questions to the person, permission prompts included")
    run_failed: bool = Field(description="An agent's run that failed")
    message: bool = Field(description="Any agent message in the inbox")
    email_reminders: bool = Field(description="Reminder emails for unanswered questions")
    muted_conversations: list[int]
    email_available: bool = Field(
        default=False,
        description="Whether this server can send email at all (a mail server is configured):"
        " without one, `email_reminders` sends nothing",
    )


class PreferencesPatch(RequestBody):
    question: bool | None = None
    run_failed: bool | None = None
    message: bool | None = None
    email_reminders: bool | None = None


class MuteIn(RequestBody):
    muted: bool


class MuteOut(BaseModel):
    conversation_id: int
    muted: bool
