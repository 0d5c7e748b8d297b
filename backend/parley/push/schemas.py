"""The push API's bodies."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from parley.schemas import RequestBody


class PushKeys(RequestBody):
    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class PushSubscriptionIn(RequestBody):
    """The browser's `PushSubscription.toJSON()`, plus an optional name for the device."""

    model_config = ConfigDict(extra="ignore")

    endpoint: str = Field(min_length=1, max_length=2048)
    keys: PushKeys
    expirationTime: int | None = None
    label: str = Field(default="", max_length=100, description="e.g. 'Phone', 'Work laptop'")


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


class PreferencesPatch(RequestBody):
    model_config = ConfigDict(extra="forbid")

    question: bool | None = None
    run_failed: bool | None = None
    message: bool | None = None
    email_reminders: bool | None = None


class MuteIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    muted: bool


class MuteOut(BaseModel):
    conversation_id: int
    muted: bool
