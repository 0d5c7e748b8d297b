"""Permission requests from Claude Code running outside Parley (its PreToolUse hook,
`parley hook claude-code`): decided by the person's rules, or asked and long-polled
(specs/claude-code-anywhere.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from parley.api.deps import CurrentCaller, DbDep, SettingsDep, WaitsDep
from parley.api.errors import AUTHED, ERRORS
from parley.api.routes_questions import Wait, check_wait
from parley.permission_requests import service
from parley.permission_requests.schemas import PermissionRequestIn, PermissionRequestOut

router = APIRouter(prefix="/api/{user_id}/permission-requests", tags=["agents"])


@router.post("", response_model=PermissionRequestOut, responses=ERRORS(*AUTHED))
async def request_permission(
    body: PermissionRequestIn, caller: CurrentCaller, db: DbDep, settings: SettingsDep
) -> PermissionRequestOut:
    """Ask whether Claude Code may make this tool call. A rule of the person's decides at
    once (`status: "decided"`); otherwise a permission question goes to their inbox and
    this answers `status: "pending"` with its `id`: long-poll `GET .../{id}?wait=`. The same
    `tool_use_id` again (from the same agent) is the same request, however often it is sent."""
    found = await service.request(
        db,
        caller=caller,
        tool_name=body.tool_name,
        tool_input=body.tool_input,
        tool_use_id=body.tool_use_id,
        cwd=body.cwd,
        session_id=body.session_id,
        machine=body.machine,
        home=body.home or None,
        question_timeout=settings.question_timeout,
        remind_after=settings.permission_remind_minutes,
    )
    return PermissionRequestOut.model_validate(found)


@router.delete("/{request_id}", response_model=PermissionRequestOut, responses=ERRORS(*AUTHED))
async def withdraw_permission_request(
    request_id: int, caller: CurrentCaller, db: DbDep
) -> PermissionRequestOut:
    """The asking agent stopped waiting (Claude Code ended its hook: Esc in the terminal, a
    stopped run): an open question closes, so the person is not asked about a call that no
    longer waits; a decided request is returned as it was. Only the agent that asked and its
    person (anyone else: 404)."""
    found = await service.withdraw(db, caller=caller, request_id=request_id)
    return PermissionRequestOut.model_validate(found)


@router.get("/{request_id}", response_model=PermissionRequestOut, responses=ERRORS(*AUTHED))
async def get_permission_request(
    request_id: int,
    caller: CurrentCaller,
    db: DbDep,
    waits: WaitsDep,
    settings: SettingsDep,
    wait: Annotated[Wait, Query(description="Seconds to wait for the decision")] = 0,
) -> PermissionRequestOut:
    """The request; with `wait`, returned as soon as it is decided (the person answered, or
    its question timed out with its default), else after `wait` seconds still `pending`.
    Only the agent that asked and its person see it (anyone else: 404)."""
    found = await service.wait(
        db,
        waits,
        caller=caller,
        request_id=request_id,
        wait_s=check_wait(wait, settings.long_poll_max),
    )
    return PermissionRequestOut.model_validate(found)
