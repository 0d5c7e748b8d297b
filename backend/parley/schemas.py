"""Wire shapes shared by the REST routes, the SSE streams and the OpenAPI schema (from which
the web UI's TypeScript types are generated). Limits come from the tables in models.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from parley.models import DESCRIPTION_MAX, TASK_TITLE_MAX


class ErrorBody(BaseModel):
    code: str
    message: str
    model_config = ConfigDict(extra="allow")


class ErrorResponse(BaseModel):
    error: ErrorBody


class ToolCallRecord(BaseModel):
    tool: str
    parameters: dict[str, Any]
    result: Any


class ChatRequest(BaseModel):
    conversation_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    message: str | None = Field(
        default=None,
        description="What the person says; trimmed, never empty, at most 16,000 characters."
        " Required unless `retry`.",
    )
    retry: bool = Field(
        default=False,
        description="Re-run the conversation's last turn, which failed, on its stored message"
        " (no `message`); 409 nothing_to_retry if it did not fail",
    )
    model_config = ConfigDict(extra="forbid")

    @field_validator("message")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        # PostgreSQL text cannot hold NUL: refuse it here, before anything is stored.
        if value is not None and "\x00" in value:
            raise ValueError("must not contain NUL characters (\\u0000)")
        return value


class ChatResponse(BaseModel):
    conversation_id: int
    response: str
    tool_calls: list[ToolCallRecord]


class MessageOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    conversation_id: int
    role: str
    author: str | None
    kind: str
    content: str
    tool_calls: list[dict[str, Any]] | None
    error: bool
    reply_to: int | None
    meta: dict[str, Any] | None
    created_at: datetime


def message_json(message: Any) -> dict[str, Any]:
    """A stored message (model or row) as the JSON every API and stream sends."""
    return MessageOut.model_validate(message).model_dump(mode="json")


class TaskFields(BaseModel):
    """What a person writes on a task: the one definition the task schemas share."""

    title: str = Field(description=f"1-{TASK_TITLE_MAX} characters after trimming")
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)


class TaskOut(TaskFields):
    model_config = ConfigDict(from_attributes=True)
    number: int = Field(description="The task's number for its owner: 1, 2, 3... per user")
    completed: bool
    created_at: datetime
    updated_at: datetime


class TaskCreate(TaskFields):
    model_config = ConfigDict(extra="forbid")


class TaskPatch(BaseModel):
    """Any of the fields, each optional: only those given change."""

    title: str | None = None
    description: str | None = Field(default=None, max_length=DESCRIPTION_MAX)
    completed: bool | None = None
    model_config = ConfigDict(extra="forbid")


class ConversationOut(BaseModel):
    id: int
    title: str
    mode: str
    version: int
    created_at: datetime
    updated_at: datetime
    preview: str | None
    last_message_at: datetime | None
    unread: int = Field(description="Messages from others after the stored read position")
    last_read_id: int = Field(
        description="The person's read position (0: nothing read): an unread divider goes after it"
    )


def conversation_out(summary: Any) -> ConversationOut:
    """A `conversations.ConversationSummary` as the wire shape."""
    c = summary.conversation
    return ConversationOut(
        id=c.id,
        title=c.title,
        mode=c.mode,
        version=c.version,
        created_at=c.created_at,
        updated_at=c.updated_at,
        preview=summary.preview,
        last_message_at=summary.last_message_at,
        unread=summary.unread,
        last_read_id=c.last_read_id,
    )


class ConversationCreate(BaseModel):
    title: str | None = None
    mode: Literal["chat", "work"] = "chat"
    model_config = ConfigDict(extra="forbid")


class ConversationPatch(BaseModel):
    title: str
    model_config = ConfigDict(extra="forbid")


class StopResponse(BaseModel):
    stopped: bool = Field(description="Whether a reply was running (it has ended)")


class DevLoginRequest(BaseModel):
    user_id: str
    model_config = ConfigDict(extra="forbid")


class TokenResponse(BaseModel):
    token: str
    user_id: str


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded"]
    database: Literal["ok", "unavailable"]
    model: str
    offline_model: bool
    dev_login: bool
