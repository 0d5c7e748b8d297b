"""Wire shapes of runs, messages posted by people and agents, questions and read positions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from parley.models import CONVERSATION_TITLE_MAX, MAX_TIMEOUT, RunKind, RunStatus
from parley.schemas import (
    WHOLE,
    AgentName,
    BigId,
    IntId,
    MessageFields,
    MessageOut,
    MessageText,
    RequestBody,
    Words,
    WordsOrEmpty,
    message_json,
)
from parley.stated import MESSAGE_LIMIT, stated

# Seconds a question (or an unclaimed delegation) waits: more than 0, at most a week.
Timeout = Annotated[float, Field(gt=0), stated(maximum=MAX_TIMEOUT)]


class MessageCreate(MessageFields, RequestBody):
    text: MessageText = Field(
        description="Trimmed, never empty, at most PARLEY_MAX_MESSAGE_CHARS characters (longer"
        " is a 413)"
    )
    kind: Literal["message", "question", "answer", "status"] = Field(  # type: ignore[assignment]
        default="message",
        description="`question` (agents only) opens a wait for the person's answer",
    )
    timeout_s: Timeout | None = Field(
        default=None, description="Questions only: seconds until it times out"
    )
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"timeout_s": {"type": "number"}}, "required": ["timeout_s"]},
            "then": {"properties": {"kind": {"const": "question"}}, "required": ["kind"]},
        }
    )


class PostedOut(MessageOut):
    answered: int | None = Field(
        default=None, description="The question this message answered, if it answered one"
    )


class ReadPosition(RequestBody):
    message_id: BigId


class UnreadOut(BaseModel):
    conversation_id: int
    unread: int


class RunCreate(RequestBody):
    title: Words | None = Field(default=None, max_length=CONVERSATION_TITLE_MAX)
    parent_run_id: IntId | None = None


class RunStatusIn(RequestBody):
    text: MessageText
    progress: Annotated[int, Field(ge=0, le=100), WHOLE] | None = None


class RunFinish(RequestBody):
    status: Literal["completed", "failed", "cancelled"]
    summary: Annotated[WordsOrEmpty, MESSAGE_LIMIT] | None = Field(
        default=None, description='How it ended ("" or null: none)'
    )


class RunOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    agent: str
    kind: RunKind
    status: RunStatus
    title: str | None
    conversation_id: int | None
    parent_run_id: int | None
    started_at: datetime
    last_activity_at: datetime
    ended_at: datetime | None
    summary: str | None
    error: str | None
    progress: int | None
    latest_status: str | None


def run_json(run: Any) -> dict[str, Any]:
    return RunOut.model_validate(run).model_dump(mode="json")


class QuestionAnswer(RequestBody):
    """The person's answer: text for any question, or a decision for a permission request."""

    text: MessageText | None = Field(default=None, description="The answer, in the person's words")
    decision: Literal["allow", "allow_session", "deny"] | None = Field(
        default=None,
        description="A permission request's answer: allow this call, allow the tool for the"
        " rest of the session, or deny",
    )
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"properties": {"text": {"type": "string"}}, "required": ["text"]},
                {"properties": {"decision": {"type": "string"}}, "required": ["decision"]},
            ]
        }
    )


class QuestionOut(BaseModel):
    status: Literal["open", "answered", "timed_out", "closed"]
    question: MessageOut
    answer: MessageOut | None
    timeout_at: datetime
    asked_by: str | None
    run_id: int | None


def question_json(state: Any) -> dict[str, Any]:
    """A `questions.QuestionState` as the wire shape."""
    return {
        "status": state.status,
        "question": message_json(state.question),
        "answer": message_json(state.answer) if state.answer is not None else None,
        "timeout_at": state.timeout_at.isoformat(),
        "asked_by": state.asked_by,
        "run_id": state.run_id,
    }


class DelegationCreate(RequestBody):
    agent: AgentName = Field(
        description="The agent the task is for: its token's agent name (1-64 characters of"
        " letters, digits, '_', '.', '@', '-')"
    )
    task: MessageText
    timeout_s: Timeout = Field(
        default=3600, description="Seconds for one of its processes to claim it"
    )


class ThreadClose(RequestBody):
    """Cancelling a thread: why, if the canceller says."""

    text: Annotated[WordsOrEmpty, MESSAGE_LIMIT] | None = Field(
        default=None, description='The reason ("" or null: none given)'
    )


class ThreadResult(RequestBody):
    """Completing, failing or escalating a thread: what came of it, which must be said."""

    text: MessageText = Field(description="The result, the error or the reason")


class DelegationShown(BaseModel):
    """The stored columns of a delegation the API shows: the one definition the wire shape
    (`DelegationOut`) and the row record (`store_delegations.DelegationRecord`) share."""

    thread_id: int
    parent_run_id: int | None
    child_run_id: int | None
    parent_agent: str
    child_agent: str
    task: str
    status: Literal[
        "pending", "claimed", "completed", "failed", "escalated", "cancelled", "timed_out"
    ]
    result: str | None
    timeout_at: datetime
    created_at: datetime
    claimed_at: datetime | None
    closed_at: datetime | None
    acked_at: datetime | None = Field(
        default=None,
        description="When the child first acted in the thread; until then its claim may lapse",
    )


class DelegationOut(DelegationShown):
    open_question: MessageOut | None = Field(
        default=None, description="The child's question waiting for an answer, if any"
    )


_DELEGATION_SHOWN = frozenset(DelegationShown.model_fields)


class NextDelegation(BaseModel):
    delegation: DelegationOut | None


def delegation_json(record: Any, open_question: Any = None) -> dict[str, Any]:
    """A `delegations.DelegationRecord` (and its open question) as the wire shape."""
    fields = record.model_dump(include=_DELEGATION_SHOWN)
    out = DelegationOut(**fields, open_question=None).model_dump(mode="json")
    out["open_question"] = message_json(open_question) if open_question is not None else None
    return out
