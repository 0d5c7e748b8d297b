"""The approval rules API's bodies, with the limits the service keeps."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from parley.approvals.patterns import MAX_PATTERN
from parley.approvals.rules import MAX_MACHINE, MAX_NOTE
from parley.runs.schemas import PostedOut
from parley.schemas import RequestBody, Text

DecisionName = Literal["allow", "deny", "ask"]
ScopeName = Literal["all", "agent", "machine"]
TimeoutName = Literal["allow", "deny"]

_PATTERN = (
    "Claude Code's rule syntax: `Bash`, `Bash(npm test)`, `Bash(npm test:*)`, `Edit(src/**)`,"
    " `Read(//etc/**)`, `WebFetch(domain:example.com)`, `mcp__server`, `mcp__server__tool`"
)
_SCOPE_VALUE = "The agent's name (scope `agent`) or the machine's (scope `machine`); '' for all"


class RuleIn(RequestBody):
    decision: DecisionName
    pattern: Text = Field(min_length=1, max_length=MAX_PATTERN, description=_PATTERN)
    scope: ScopeName = "all"
    scope_value: Text = Field(default="", max_length=MAX_MACHINE, description=_SCOPE_VALUE)
    on_timeout: TimeoutName = Field(
        default="deny", description="What a question this rule asks decides if nobody answers"
    )
    note: Text = Field(default="", max_length=MAX_NOTE)


class RulePatch(RequestBody):
    """Only the fields given change; the rule as changed must still be whole."""

    decision: DecisionName | None = None
    pattern: Text | None = Field(
        default=None, min_length=1, max_length=MAX_PATTERN, description=_PATTERN
    )
    scope: ScopeName | None = None
    scope_value: Text | None = Field(default=None, max_length=MAX_MACHINE)
    on_timeout: TimeoutName | None = None
    note: Text | None = Field(default=None, max_length=MAX_NOTE)


class RuleOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    decision: DecisionName
    pattern: str
    scope: ScopeName
    scope_value: str
    on_timeout: TimeoutName
    note: str
    source: Literal["hand", "always"] = Field(
        description="Written by the person, or made by 'Always allow this' on `question_id`"
    )
    question_id: int | None
    created_at: datetime
    updated_at: datetime


class AlwaysOut(BaseModel):
    rule: RuleOut
    answer: PostedOut
