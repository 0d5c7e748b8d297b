"""Wire shapes of the account routes (the web UI's types are generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from parley.schemas import REQUEST, RequestBody, Text


class AuthConfig(BaseModel):
    signup: Literal["open", "invite", "closed"]
    dev_login: bool
    oidc: bool
    oidc_name: str | None
    passkeys: bool = True
    email_verification: bool = Field(
        default=False, description="Whether this server can mail a link that verifies an email"
    )


class SignupRequest(RequestBody):
    user_id: Text = Field(max_length=64)
    password: Text = Field(max_length=1024)
    email: Text | None = Field(default=None, max_length=320)
    invite: Text | None = Field(default=None, max_length=200)
    model_config = REQUEST


class LoginRequest(RequestBody):
    login: Text = Field(max_length=320, description="user id or email")
    password: Text = Field(max_length=1024)
    model_config = REQUEST


class PasswordChange(RequestBody):
    current_password: Text = Field(max_length=1024)
    new_password: Text = Field(max_length=1024)
    model_config = REQUEST


class AccountOut(BaseModel):
    user_id: str
    email: str | None
    is_admin: bool


class MeOut(AccountOut):
    agent: str | None
    via: Literal["session", "bearer"]
    email_verified: bool = Field(
        description="Only a verified email signs in by email or lets single sign-on join"
    )
    sso_linked: bool = Field(description="Whether a single sign-on identity is linked")


class EmailChange(RequestBody):
    email: Text | None = Field(max_length=320, description="null removes it")
    model_config = REQUEST


class EmailState(BaseModel):
    email: str | None
    email_verified: bool


class EmailVerify(RequestBody):
    token: Text = Field(max_length=200, description="From the emailed link")
    model_config = REQUEST


class OidcLinkRequest(RequestBody):
    next: Text | None = Field(default=None, max_length=2000, description="Where to come back")
    model_config = REQUEST


class OidcLinkStarted(BaseModel):
    redirect_to: str = Field(description="The identity provider: send the browser there")


class DevLoginOut(BaseModel):
    """Also sets the session cookie; the token is for scripts, never for the web UI."""

    token: str
    user_id: str


class InviteCreate(RequestBody):
    email: Text | None = Field(default=None, max_length=320)
    user_id: Text | None = Field(
        default=None, max_length=64, description="Only this user id may sign up with it"
    )
    is_admin: bool = False
    model_config = REQUEST


class InviteOut(BaseModel):
    id: int
    url: str
    expires_at: datetime


class InviteInfo(BaseModel):
    email: str | None
    user_id: str | None


class SessionShown(BaseModel):
    """A web session as the API shows it: the one definition the wire shape (`SessionOut`)
    and the row record (`sessions.SessionRecord`) share."""

    id: int
    device: str
    created_at: datetime
    last_seen_at: datetime


class SessionOut(SessionShown):
    current: bool


class AgentKeyCreate(RequestBody):
    agent: Text = Field(max_length=64)
    expires_at: datetime | None = Field(default=None, strict=False)
    model_config = REQUEST


class AgentKeyOut(BaseModel):
    id: int
    agent: str
    prefix: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


class AgentKeyCreated(AgentKeyOut):
    secret: str = Field(description="Shown once: send it as `Authorization: Bearer <secret>`")


class PasskeyOut(BaseModel):
    id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None


class PasskeyVerify(RequestBody):
    credential: dict[str, Any]
    name: Text | None = Field(default=None, max_length=100)
    model_config = REQUEST


class PasskeyLogin(RequestBody):
    credential: dict[str, Any]
    model_config = REQUEST
