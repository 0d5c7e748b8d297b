"""A person's own credentials: web sessions and agent keys (and passkeys, listed here;
their ceremonies are in routes_passkeys). An agent's key can manage none of them."""

from __future__ import annotations

from fastapi import APIRouter, Response

from parley.accounts import keys, passkeys, reauth, sessions
from parley.accounts.schemas import (
    AgentKeyCreate,
    AgentKeyCreated,
    AgentKeyOut,
    PasskeyOut,
    SessionOut,
)
from parley.api.deps import (
    CredentialsDep,
    DbDep,
    PersonPrincipal,
    RecentPathPerson,
    SettingsDep,
)
from parley.api.errors import AUTHED, ERRORS
from parley.api.web_session import idle

router = APIRouter(prefix="/api/{user_id}", tags=["accounts"])


@router.get("/sessions", response_model=list[SessionOut], responses=ERRORS(*AUTHED))
async def list_sessions(
    principal: PersonPrincipal, db: DbDep, settings: SettingsDep
) -> list[SessionOut]:
    """Signed-in browsers, most recently seen first; `current` is this one."""
    found = await sessions.listed(db, user_id=principal.caller.user_id, idle=idle(settings))
    return [SessionOut(**s.model_dump(), current=s.id == principal.session_id) for s in found]


@router.delete("/sessions/{session_id}", status_code=204, responses=ERRORS(*AUTHED))
async def end_session(
    session_id: int,
    principal: PersonPrincipal,
    db: DbDep,
    settings: SettingsDep,
    credentials: CredentialsDep,
) -> Response:
    """Signs that browser out, on every instance within a second. Another browser's session
    ends only for someone who signed in within PARLEY_REAUTH_MINUTES (403
    `reauth_required`): a stolen session cannot sign its owner out; this one's always ends."""
    if session_id != principal.session_id:
        await reauth.require_recent(db, principal=principal, settings=settings)
    await sessions.end_one(db, user_id=principal.caller.user_id, session_id=session_id)
    credentials.forget()
    return Response(status_code=204)


@router.delete("/sessions", status_code=204, responses=ERRORS(*AUTHED))
async def end_other_sessions(
    principal: RecentPathPerson, db: DbDep, credentials: CredentialsDep
) -> Response:
    """Signs out every other browser (after changing a passkey, say); this one stays. Needs
    a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`)."""
    await sessions.end_others(db, user_id=principal.caller.user_id, keep=principal.session_id)
    credentials.forget()
    return Response(status_code=204)


@router.post(
    "/agent-keys",
    status_code=201,
    response_model=AgentKeyCreated,
    responses=ERRORS(*AUTHED),
)
async def create_agent_key(
    body: AgentKeyCreate, principal: RecentPathPerson, db: DbDep
) -> AgentKeyCreated:
    """A key for the named agent: what it writes is `role=agent, author=<agent>`. The secret
    is in this response only. Needs a sign-in within PARLEY_REAUTH_MINUTES (403
    `reauth_required`): a key outlives the session that made it."""
    record, secret = await keys.create(
        db, user_id=principal.caller.user_id, agent=body.agent, expires_at=body.expires_at
    )
    return AgentKeyCreated(**record.model_dump(), secret=secret)


@router.get("/agent-keys", response_model=list[AgentKeyOut], responses=ERRORS(*AUTHED))
async def list_agent_keys(principal: PersonPrincipal, db: DbDep) -> list[AgentKeyOut]:
    return list(await keys.listed(db, user_id=principal.caller.user_id))


@router.delete("/agent-keys/{key_id}", status_code=204, responses=ERRORS(*AUTHED))
async def revoke_agent_key(
    key_id: int, principal: PersonPrincipal, db: DbDep, credentials: CredentialsDep
) -> Response:
    """Refused everywhere (REST, SSE, /mcp, stdio; every instance) within a second."""
    await keys.revoke(db, user_id=principal.caller.user_id, key_id=key_id)
    credentials.forget()
    return Response(status_code=204)


@router.get("/passkeys", response_model=list[PasskeyOut], responses=ERRORS(*AUTHED))
async def list_passkeys(principal: PersonPrincipal, db: DbDep) -> list[PasskeyOut]:
    return list(await passkeys.listed(db, user_id=principal.caller.user_id))


@router.delete("/passkeys/{passkey_id}", status_code=204, responses=ERRORS(*AUTHED))
async def delete_passkey(passkey_id: int, principal: RecentPathPerson, db: DbDep) -> Response:
    """Needs a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`)."""
    await passkeys.delete(db, user_id=principal.caller.user_id, passkey_id=passkey_id)
    return Response(status_code=204)
