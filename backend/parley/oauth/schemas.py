"""Wire shapes of the consent page's and the connected apps' routes."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from parley.schemas import REQUEST, RequestBody


class ConsentRequest(BaseModel):
    """What the consent page shows before the person allows or denies."""

    client_id: str
    client_name: str
    client_host: str = Field(description="The host of the client's id URL, else of its redirect")
    redirect_uri: str
    agent: str = Field(description="The agent name suggested for what the client writes")
    resource: str


class ConsentDecision(RequestBody):
    model_config = REQUEST

    allow: bool
    agent: str | None = Field(default=None, description="Required when allowing")


class ConsentResult(BaseModel):
    redirect_to: str = Field(description="Where the browser goes next: the client's redirect")


class ConnectedAppOut(BaseModel):
    id: int
    agent: str
    client_id: str
    client_name: str
    client_host: str
    created_at: datetime
    last_used_at: datetime | None
