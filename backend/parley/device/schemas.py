"""Wire shapes of the web UI's device page (`/device`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from parley.schemas import RequestBody


class DeviceCodeIn(RequestBody):
    user_code: str = Field(
        max_length=64, description="The code the terminal shows (XXXX-XXXX; any case, dash or not)"
    )


class DeviceDecisionIn(DeviceCodeIn):
    decision: Literal["allow", "deny"]


class DeviceRequestOut(BaseModel):
    """What a waiting code asks for, to the person who entered it."""

    application: str = Field(description="What asks to act for the person: 'Claude Code'")
    machine: str = Field(description="The machine it says it runs on (a host name)")
    created_at: datetime
    expires_at: datetime
    reauth_required: bool = Field(
        default=False,
        description="Approving needs a sign-in within PARLEY_REAUTH_MINUTES: the page asks"
        " the person to confirm it is them first (denying never does)",
    )
    reauth_methods: list[str] = Field(default_factory=list)


class DeviceDecisionOut(BaseModel):
    decision: Literal["allow", "deny"]
    application: str
    machine: str
