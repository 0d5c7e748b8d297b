"""The push API's bodies."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from parley.schemas import RequestModel


class PushKeys(RequestModel):
    """The browser's own object (as `PushSubscriptionIn`): a field a browser adds is not
    ours to refuse."""

    model_config = ConfigDict(extra="ignore")

    p256dh: str = Field(max_length=200)
    auth: str = Field(max_length=100)


class PushSubscriptionIn(RequestModel):
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


class PreferencesPatch(RequestModel):
    question: bool | None = None
    run_failed: bool | None = None
    message: bool | None = None
    email_reminders: bool | None = None


class MuteIn(RequestModel):
    muted: bool


class MuteOut(BaseModel):
    conversation_id: int
    muted: bool
