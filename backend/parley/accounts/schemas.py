"""Wire shapes of the account routes (the web UI's types are generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from parley.accounts.hashing import PASSWORD_MAX, PASSWORD_MIN
from parley.schemas import AgentName, NewUserId, RequestBody, Text
from parley.stated import STORABLE, STORABLE_JSON_REF, stated

# The emails the schema promises to take: printable ASCII, one '@' (the server also takes an
# international domain written in Unicode, stored in its xn-- form, when IDNA maps it).
ASCII_EMAIL = r"^[!-?A-~]{1,64}@[!-?A-~]{1,255}$"
Email = Annotated[Text, stated(pattern=ASCII_EMAIL)]
NewPassword = Annotated[Text, stated(minLength=PASSWORD_MIN)]
# What a WebAuthn credential (the browser's JSON) must hold for the server to find the
# challenge it answers: base64url JSON with the challenge in it. JSON Schema can only annotate
# encoded content, so a generator cannot be told; a credential that is not one is a 422.
# Free-form beyond that: any JSON whose strings hold no NUL (`RequestBody` checks every one).
_FREE = {"propertyNames": {"pattern": STORABLE}, "additionalProperties": STORABLE_JSON_REF}
CLIENT_DATA = {
    "type": "object",
    "required": ["response"],
    **_FREE,
    "properties": {
        "response": {
            "type": "object",
            "required": ["clientDataJSON"],
            **_FREE,
            "properties": {
                "clientDataJSON": {
                    "type": "string",
                    "pattern": STORABLE,
                    "contentEncoding": "base64url",
                    "contentMediaType": "application/json",
                    "contentSchema": {
                        "type": "object",
                        "required": ["challenge"],
                        "properties": {
                            "challenge": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,200}$"}
                        },
                    },
                }
            },
        }
    },
}
Credential = Annotated[dict[str, Any], stated(**CLIENT_DATA)]


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
    user_id: NewUserId = Field(max_length=64)
    password: NewPassword = Field(max_length=PASSWORD_MAX)
    email: Email | None = Field(default=None, max_length=320)
    invite: Text | None = Field(default=None, max_length=200)


class LoginRequest(RequestBody):
    login: Text = Field(max_length=320, description="user id or email")
    password: Text = Field(max_length=PASSWORD_MAX)


class PasswordChange(RequestBody):
    current_password: Text = Field(max_length=PASSWORD_MAX)
    new_password: NewPassword = Field(max_length=PASSWORD_MAX)


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
    email: Email | None = Field(max_length=320, description="null removes it")


class EmailState(BaseModel):
    email: str | None
    email_verified: bool


class EmailVerify(RequestBody):
    token: Text = Field(max_length=200, description="From the emailed link")


class OidcLinkRequest(RequestBody):
    next: Text | None = Field(default=None, max_length=2000, description="Where to come back")


class OidcLinkStarted(BaseModel):
    redirect_to: str = Field(description="The identity provider: send the browser there")


class DevLoginOut(BaseModel):
    """Also sets the session cookie; the token is for scripts, never for the web UI."""

    token: str
    user_id: str


class InviteCreate(RequestBody):
    email: Email | None = Field(default=None, max_length=320)
    user_id: NewUserId | None = Field(
        default=None, max_length=64, description="Only this user id may sign up with it"
    )
    is_admin: bool = False


class InviteOut(BaseModel):
    id: int
    url: str
    expires_at: datetime


class InviteInfo(BaseModel):
    email: str | None
    user_id: str | None


class SessionShown(BaseModel):
    """A web session as the API shows it: the one definition the wire shape (`SessionOut`)
    and the row record (`store_credentials.SessionRecord`) share."""

    id: int
    device: str
    created_at: datetime
    last_seen_at: datetime


class SessionOut(SessionShown):
    current: bool


class AgentKeyCreate(RequestBody):
    agent: AgentName = Field(max_length=64)
    expires_at: datetime | None = Field(
        default=None, strict=False, description="With a time zone; in the future"
    )


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
    credential: Credential
    name: Text | None = Field(default=None, max_length=100)


class PasskeyLogin(RequestBody):
    credential: Credential


class SecondFactorStatusOut(BaseModel):
    enabled: bool
    pending: bool = Field(description="set up but not confirmed with a code yet")
    recovery_codes_left: int


class SecondFactorSetupOut(BaseModel):
    secret: str = Field(description="base32, to type into the app; shown only now")
    otpauth_uri: str = Field(description="otpauth://totp/... for a QR code")


class SecondFactorCode(RequestBody):
    code: Text = Field(max_length=64, description="the 6 digits the app shows now")


class RecoveryCodesOut(BaseModel):
    recovery_codes: list[str] = Field(description="each works once; shown only now")


class SecondFactorLogin(RequestBody):
    challenge: Text = Field(max_length=200, description="from the 401 second_factor_required")
    code: Text = Field(max_length=64, description="the app's 6 digits, or a recovery code")
