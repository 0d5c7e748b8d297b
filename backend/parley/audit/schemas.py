"""The audit trail API's shapes, with the limits the service keeps."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from parley.audit.store import MAX_ANSWER, MAX_ASKED, MAX_INPUT

DecisionName = Literal["allow", "allow_session", "deny", "answer", "timed_out", "withdrawn"]


class AuditEventOut(BaseModel):
    """One decision on a question or permission request."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    user_id: str
    kind: Literal["question", "permission"]
    asked: str = Field(description=f"The question's text (its first {MAX_ASKED} characters)")
    tool: str | None = Field(description="A permission request's tool")
    tool_input: Any = Field(
        description=f"Its input; past {MAX_INPUT} characters of JSON,"
        " `{truncated: true, preview}`"
    )
    agent: str | None = Field(description="The agent that asked (`claude-code`: a work session)")
    machine: str | None = Field(description="The machine it asked from, when it said")
    question_id: int | None = Field(description="None for a call a rule decided unasked")
    conversation_id: int | None
    decision: DecisionName = Field(
        description="`answer`: a question's text answer; `timed_out`: nobody answered and"
        " there was no default; `withdrawn`: the agent took it back"
    )
    answer: str | None = Field(description=f"The answer's text (first {MAX_ANSWER} characters)")
    decided_by: Literal["person", "rule", "timeout_default", "agent"]
    decider: str | None = Field(description="The agent that decided (a parent for its child)")
    rule_id: int | None
    rule_pattern: str | None
    via: Literal["web", "push_action", "email_link", "mcp", "rest", "rule", "timeout"]
    device_id: int | None = Field(description="The push subscription a notification's button")
    session_id: int | None = Field(description="The web session, answered from the web UI")
    asked_at: datetime
    decided_at: datetime
    waited_ms: int = Field(ge=0)


class AuditPage(BaseModel):
    events: list[AuditEventOut]
    next_cursor: int | None = Field(
        description="Ask again with it as `cursor` for older events; null: no more"
    )
