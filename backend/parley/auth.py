"""Bearer JWTs (HS256) from `parley token` and dev sign-in: `sub` is the user, `exp` is
required, `iat` says when it was issued, which `parley.accounts.credentials` compares with the
account's `tokens_revoked_at` on every request, so such a token can be revoked."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import lru_cache

import jwt

from parley.errors import Forbidden, InvalidInput, Unauthorized

ALGORITHM = "HS256"
# Not "." or ".." (nor any all-dots name): a user id is a path segment, and those are not.
# This is what an existing user id (and an agent's name) may be: ids made before migration 0054
# may hold '@', and keep working wherever an id is read (tokens, paths, folders).
USER_ID_PATTERN = r"^(?!\.+$)[A-Za-z0-9_.@-]{1,64}$"
USER_ID_RE = re.compile(USER_ID_PATTERN)
# What a user id made now may be: never an email, so that "sign in as x@y" can only ever mean
# the account whose verified email is x@y, never an account someone named so to block it.
NEW_USER_ID_PATTERN = r"^(?!\.+$)[A-Za-z0-9_.-]{1,64}$"
NEW_USER_ID_RE = re.compile(NEW_USER_ID_PATTERN)
# The in-process assistant names the turn's user in an MCP request's `_meta` under this key
# (`parley.assistant.mcp_bridge` writes it, `parley.tools.identity` reads it). Only the
# in-process tool server reads it: reachable from this process alone, so the key cannot be
# set by a remote caller. Here, beside the rest of "who is calling", so that neither side
# imports the other.
USER_META_KEY = "parley.dev/user_id"


def validate_user_id(user_id: str) -> str:
    """An existing user id (one that may own data): `validate_new_user_id` for a new one."""
    if not USER_ID_RE.fullmatch(user_id):
        raise InvalidInput(
            "user_id must be 1-64 characters of letters, digits, '_', '.', '@' or '-',"
            " and not only dots",
            details=[{"field": "user_id"}],
        )
    return user_id


def validate_new_user_id(user_id: str) -> str:
    """A user id about to be created or given a credential: the rules of every id, and no
    '@' (a user name is never an email)."""
    if "@" in user_id:
        raise InvalidInput(
            "user_id cannot contain '@': a user name is not an email (add the email to the"
            " account instead, and verify it to sign in with it)",
            details=[{"field": "user_id"}],
        )
    if not NEW_USER_ID_RE.fullmatch(user_id):
        raise InvalidInput(
            "user_id must be 1-64 characters of letters, digits, '_', '.' or '-',"
            " and not only dots",
            details=[{"field": "user_id"}],
        )
    return user_id


def validate_agent_name(agent: str) -> str:
    if not USER_ID_RE.fullmatch(agent):
        raise InvalidInput(
            "agent must be 1-64 characters of letters, digits, '_', '.', '@' or '-'",
            details=[{"field": "agent"}],
        )
    return agent


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is acting: a person (`agent` None) or one of their agents, named by the token.
    What an agent writes is `role=agent, author=<agent>`; a person's, `role=user`."""

    user_id: str
    agent: str | None = None

    @property
    def role(self) -> str:
        return "agent" if self.agent else "user"

    @property
    def author(self) -> str:
        return self.agent or self.user_id

    def require_agent(self, purpose: str) -> str:
        """The agent's name; a person's token is refused (403), saying `purpose` and how an
        agent gets a token."""
        if self.agent is None:
            raise Forbidden(
                f"{purpose}: use an agent key (POST /api/{{user_id}}/agent-keys)",
                code="agent_token_required",
            )
        return self.agent


def mint_token(
    *,
    secret: str,
    user_id: str,
    ttl_seconds: int,
    agent: str | None = None,
) -> str:
    """A new JWT: only for a user id that could be made now (no '@'); ones already issued
    for older ids keep verifying until they expire."""
    validate_new_user_id(user_id)
    now = int(time.time())
    claims: dict[str, object] = {"sub": user_id, "iat": now, "exp": now + ttl_seconds}
    if agent is not None:
        claims["agent"] = validate_agent_name(agent)
    return jwt.encode(claims, secret, ALGORITHM)


def verify_token(*, secret: str, token: str) -> str:
    """The token's user id, or Unauthorized. Expired, unsigned or `exp`-less tokens all fail."""
    return verify_caller(secret=secret, token=token).user_id


def verify_caller(*, secret: str, token: str) -> Caller:
    """The token's person, and agent if it is an agent's token (its signature and expiry
    only: `parley.accounts.credentials` also checks it has not been revoked)."""
    return verify_claims(secret=secret, token=token)[0]


def verify_claims(*, secret: str, token: str) -> tuple[Caller, float]:
    """The token's caller and when it was issued (0 if it does not say), if it is signed
    and unexpired."""
    caller, expires, issued = _verified(secret, token)
    if expires <= time.time():  # checked on every use: a cached token still expires
        raise Unauthorized("Token expired; sign in again")
    return caller, issued


@lru_cache(maxsize=4096)
def _verified(secret: str, token: str) -> tuple[Caller, float, float]:
    """A token's signature and claims never change, so each is checked once, not on every
    request (a tenth of a millisecond each). Failures raise, and are not cached."""
    try:
        claims = jwt.decode(
            token, secret, algorithms=[ALGORITHM], options={"require": ["sub", "exp"]}
        )
    except jwt.ExpiredSignatureError as exc:
        raise Unauthorized("Token expired; sign in again") from exc
    except jwt.PyJWTError as exc:
        raise Unauthorized("Invalid token") from exc
    sub, expires = claims.get("sub"), claims.get("exp")
    if not isinstance(sub, str) or not USER_ID_RE.fullmatch(sub):
        raise Unauthorized("Invalid token subject")
    if not isinstance(expires, int | float):
        raise Unauthorized("Invalid token expiry")
    agent = claims.get("agent")
    if agent is not None and (not isinstance(agent, str) or not USER_ID_RE.fullmatch(agent)):
        raise Unauthorized("Invalid token agent")
    issued = claims.get("iat", 0)
    if not isinstance(issued, int | float) or isinstance(issued, bool):
        raise Unauthorized("Invalid token issue time")
    return Caller(sub, agent), float(expires), float(issued)


def bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise Unauthorized("Missing bearer token")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Authorization must be 'Bearer <token>'")
    return token.strip()
