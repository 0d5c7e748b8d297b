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


class WorkState(BaseModel):
    """A work conversation's Claude Code session, as the person sees it."""

    status: Literal["starting", "working", "waiting_permission", "idle", "ended"]
    cost_usd: float
    run_id: int | None
    workspace: str | None = None
    pending_question_id: int | None = None


class ConversationOut(BaseModel):
    id: int
    title: str
    mode: str
    version: int
    created_at: datetime
    updated_at: datetime
    preview: str | None
    last_message_at: datetime | None
    work: WorkState | None = None


class SendRequest(BaseModel):
    text: str = Field(description="Trimmed, never empty, at most 16,000 characters")
    kind: Literal["message", "answer"] | None = None
    reply_to: int | None = Field(default=None, ge=1, le=2**63 - 1)
    model_config = ConfigDict(extra="forbid")

    @field_validator("text")
    @classmethod
    def _storable(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("must not contain NUL characters (\\u0000)")
        return value


class StopResponse(BaseModel):
    stopped: bool


class WorkEndResponse(BaseModel):
    ended: bool


class WorkHealth(BaseModel):
    available: bool
    reason: str | None


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
    work: WorkHealth
