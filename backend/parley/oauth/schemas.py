"""Wire shapes of the consent page's and the connected apps' routes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from parley.auth import USER_ID_PATTERN
from parley.schemas import RequestBody


class ConsentRequest(BaseModel):
    """What the consent page shows before the person allows or denies."""

    client_id: str
    client_name: str
    client_host: str = Field(
        description="The host of the client's id URL, else of its redirect (never user info)"
    )
    redirect_uri: str
    redirect_kind: Literal["web", "loopback", "native"] = Field(
        description="web: an https site; loopback: a program on the person's own computer;"
        " native: an app on their device (a private-use scheme)"
    )
    agent: str = Field(description="The agent name suggested for what the client writes")
    resource: str
    reauth_required: bool = Field(
        default=False,
        description="Allowing needs a sign-in within PARLEY_REAUTH_MINUTES: the page asks the"
        " person to confirm it is them first (denying never does)",
    )
    reauth_methods: list[str] = Field(
        default_factory=list,
        description="How the person can sign in again: password, passkey, sso, dev",
    )
    refresh_days: float = Field(
        default=0, description="How long the app keeps access without being used (days)"
    )
    grant_days: float = Field(
        default=0, description="The longest the app keeps access before asking again (days)"
    )


class ConsentDecision(RequestBody):
    """The consent page's form (`application/x-www-form-urlencoded`): the button pressed."""

    decision: Literal["allow", "deny"]
    agent: str | None = Field(
        default=None,
        max_length=200,
        description="Required when allowing: the agent the client acts as (1-64 letters,"
        " digits, '_', '.', '@' or '-')",
    )
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"decision": {"const": "allow"}}, "required": ["decision"]},
            "then": {
                "properties": {"agent": {"type": "string", "pattern": USER_ID_PATTERN}},
                "required": ["agent"],
            },
        }
    )


class ConnectedAppOut(BaseModel):
    id: int
    agent: str
    client_id: str
    client_name: str
    client_host: str
    created_at: datetime
    last_used_at: datetime | None
