"""Wire shapes shared by the REST routes, the SSE streams and the OpenAPI schema."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
    message: str = Field(
        description="What the person says; trimmed, never empty, at most 16,000 characters"
    )
    model_config = ConfigDict(extra="forbid")

    @field_validator("message")
    @classmethod
    def _storable(cls, value: str) -> str:
        # PostgreSQL text cannot hold NUL: refuse it here, before anything is stored.
        if "\x00" in value:
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


class TaskOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    title: str
    description: str | None
    completed: bool
    created_at: datetime
    updated_at: datetime


class TaskCreate(BaseModel):
    title: str = Field(description="1-500 characters after trimming")
    description: str | None = Field(default=None, max_length=5000)
    model_config = ConfigDict(extra="forbid")


class TaskPatch(BaseModel):
    title: str | None = None
    description: str | None = Field(default=None, max_length=5000)
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
    )


class ConversationCreate(BaseModel):
    title: str | None = None
    mode: Literal["chat", "work"] = "chat"
    model_config = ConfigDict(extra="forbid")


class ConversationPatch(BaseModel):
    title: str
    model_config = ConfigDict(extra="forbid")


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
