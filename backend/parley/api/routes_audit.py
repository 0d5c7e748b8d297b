"""A person's audit trail (specs/audit.md): every decision on their questions and permission
requests, read a page at a time or exported as JSON Lines. The person only (an agent's key
is 403), or an admin, who reads anyone's."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import StreamingResponse

from parley import audit
from parley.api.deps import DbDep, PathUserId, PrincipalDep
from parley.api.errors import AUTHED, ERRORS
from parley.audit.schemas import AuditEventOut, AuditPage, DecisionName
from parley.audit.trail import MAX_PAGE
from parley.db import Database
from parley.errors import Forbidden
from parley.schemas import BIGINT_END

router = APIRouter(prefix="/api/{user_id}", tags=["audit"])


async def _reader(user_id: PathUserId, principal: PrincipalDep) -> str:
    """The person on their own path, or an admin on anyone's; never an agent's key (an
    admin's agent is no admin)."""
    admin = principal.is_admin and principal.caller.agent is None
    if user_id != principal.caller.user_id and not admin:
        raise Forbidden("This credential belongs to another user")
    if principal.caller.agent is not None:
        raise Forbidden("An agent's key cannot read the audit trail", code="agent_not_allowed")
    return user_id


Reader = Annotated[str, Depends(_reader)]
AgentQ = Annotated[str | None, Query(max_length=100, description="Only this agent's")]
DecisionQ = Annotated[DecisionName | None, Query(description="Only this decision")]
SinceQ = Annotated[
    datetime | None, Query(description="Only decisions at or after this time (ISO 8601, with zone)")
]


@router.get("/audit", response_model=AuditPage, responses=ERRORS(*AUTHED))
async def read_trail(
    user_id: Reader,
    db: DbDep,
    agent: AgentQ = None,
    decision: DecisionQ = None,
    since: SinceQ = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    cursor: Annotated[
        int | None,
        Query(ge=1, lt=BIGINT_END, description="A page's `next_cursor`: the events before it"),
    ] = None,
) -> AuditPage:
    """The person's decisions, newest first: what was asked, by which agent, who or which
    rule decided, through what, and how long it waited."""
    page = await audit.trail(
        db,
        user_id=user_id,
        agent=agent,
        decision=decision,
        since=since,
        cursor=cursor,
        limit=limit,
    )
    return AuditPage(
        events=[AuditEventOut.model_validate(e) for e in page.events],
        next_cursor=page.next_cursor,
    )


async def _lines(
    db: Database, user_id: str, agent: str | None, decision: str | None, since: datetime | None
) -> AsyncIterator[bytes]:
    async for event in audit.export(
        db, user_id=user_id, agent=agent, decision=decision, since=since
    ):
        yield (AuditEventOut.model_validate(event).model_dump_json() + "\n").encode()


@router.get(
    "/audit.jsonl",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One AuditEventOut JSON object a line, newest first",
            "content": {"application/jsonl": {"schema": {"type": "string"}}},
        },
        **ERRORS(*AUTHED),
    },
)
async def export_trail(
    user_id: Reader,
    db: DbDep,
    agent: AgentQ = None,
    decision: DecisionQ = None,
    since: SinceQ = None,
) -> StreamingResponse:
    """Every matching decision as JSON Lines (one event a line, newest first), streamed."""
    await audit.trail(db, user_id=user_id, agent=agent, decision=decision, since=since, limit=1)
    name = json.dumps(f"parley-audit-{user_id}.jsonl")
    return StreamingResponse(
        _lines(db, user_id, agent, decision, since),
        media_type="application/jsonl",
        headers={"Content-Disposition": f"attachment; filename={name}"},
    )
