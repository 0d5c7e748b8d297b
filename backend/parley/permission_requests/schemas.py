"""The permission requests API's bodies: a Claude Code hook event's fields, as it sends them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from parley.approvals.rules import MAX_MACHINE
from parley.permission_requests.service import MAX_ID, MAX_PATH, MAX_TOOL_NAME
from parley.schemas import RequestBody, Text
from parley.stated import STORABLE, STORABLE_JSON_REF, stated

ToolInput = Annotated[
    dict[str, Any],
    stated(propertyNames={"pattern": STORABLE}, additionalProperties=STORABLE_JSON_REF),
]


class PermissionRequestIn(RequestBody):
    """One tool call Claude Code is about to make (its PreToolUse hook event's fields)."""

    tool_name: Text = Field(min_length=1, max_length=MAX_TOOL_NAME, description="`Bash`, `Write`…")
    tool_input: ToolInput = Field(description="The tool's arguments, as Claude Code gives them")
    tool_use_id: Text = Field(
        min_length=1,
        max_length=MAX_ID,
        description="Claude Code's id of the call: the same id again is the same request",
    )
    cwd: Text = Field(default="", max_length=MAX_PATH, description="The session's working folder")
    session_id: Text = Field(default="", max_length=MAX_ID)
    machine: Text = Field(
        default="", max_length=MAX_MACHINE, description="The machine's name, for machine rules"
    )
    home: Text = Field(
        default="", max_length=MAX_PATH, description="The machine's home folder (`~` in rules)"
    )


class PermissionRequestOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int | None = Field(description="The question asking the person; null if a rule decided")
    status: Literal["pending", "decided"]
    decision: Literal["allow", "deny"] | None
    reason: str = Field(description="What Claude Code is told (a denial's reaches the model)")
    rule_id: int | None = Field(description="The rule that decided, or the ask rule that asked")
    decided_by: Literal["rule", "person", "timeout", "closed"] | None
