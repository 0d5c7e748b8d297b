"""Wire shapes of the consent page's and the connected apps' routes."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from parley.schemas import REQUEST, RequestBody


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


class ConsentDecision(RequestBody):
    """The consent page's form (`application/x-www-form-urlencoded`): the button pressed."""

    model_config = REQUEST

    decision: Literal["allow", "deny"]
    agent: str | None = Field(default=None, max_length=200, description="Required when allowing")


class ConnectedAppOut(BaseModel):
    id: int
    agent: str
    client_id: str
    client_name: str
    client_host: str
    created_at: datetime
    last_used_at: datetime | None
