"""Agent runs over REST, for agents that do not speak MCP."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from parley.api.deps import CurrentCaller, CurrentUser, DbDep, HubDep, ModesDep, SettingsDep
from parley.api.errors import AUTHED, ERRORS
from parley.api.routes_messages import post
from parley.api.routes_questions import Wait, check_wait
from parley.models import ConversationMode
from parley.runs import runs
from parley.runs.messages import wait_for_messages
from parley.runs.schemas import MessageCreate, PostedOut, RunCreate, RunFinish, RunOut, RunStatusIn
from parley.schemas import BIGINT_END, MessageOut

router = APIRouter(prefix="/api/{user_id}/runs", tags=["runs"])

RunStatus = Literal["running", "waiting_input", "completed", "failed", "cancelled", "timed_out"]


@router.post("", response_model=RunOut, status_code=201, responses=ERRORS(*AUTHED))
async def start_run(body: RunCreate, caller: CurrentCaller, db: DbDep) -> RunOut:
    """Start a run as the token's agent (a person's token gets 403), with its own `run`
    conversation."""
    run = await runs.start_run(
        db, caller=caller, title=body.title, parent_run_id=body.parent_run_id
    )
    return RunOut.model_validate(run)


@router.get("", response_model=list[RunOut], responses=ERRORS(*AUTHED))
async def list_runs(
    user_id: CurrentUser, db: DbDep, status: RunStatus | None = None
) -> list[RunOut]:
    """Newest first (at most 500)."""
    found = await runs.list_runs(db, user_id=user_id, status=status)
    return [RunOut.model_validate(r) for r in found]


@router.get("/{run_id}", response_model=RunOut, responses=ERRORS(*AUTHED))
async def get_run(run_id: int, user_id: CurrentUser, db: DbDep) -> RunOut:
    return RunOut.model_validate(await runs.get_run(db, user_id=user_id, run_id=run_id))


@router.post(
    "/{run_id}/messages",
    response_model=PostedOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 413),
)
async def post_to_run(
    run_id: int, body: MessageCreate, caller: CurrentCaller, db: DbDep, modes: ModesDep
) -> PostedOut:
    """Write into the run's conversation (as its agent, or as the person); 409 once it ended."""
    conversation_id = await runs.run_conversation(db, caller=caller, run_id=run_id)
    return await post(modes.of(ConversationMode.run), body, caller, conversation_id)


@router.get("/{run_id}/messages", response_model=list[MessageOut], responses=ERRORS(*AUTHED))
async def read_run(
    run_id: int,
    caller: CurrentCaller,
    db: DbDep,
    hub: HubDep,
    settings: SettingsDep,
    after: Annotated[int, Query(ge=0, lt=BIGINT_END)] = 0,
    wait: Annotated[Wait, Query(description="Seconds to wait for something new")] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 100,
) -> list[MessageOut]:
    """Messages after `after`, at once if any; else waits up to `wait` seconds (at most
    PARLEY_LONG_POLL_MAX) for the first to arrive, from any instance; else `[]`."""
    check_wait(wait, settings.long_poll_max)
    conversation_id = await runs.run_conversation(db, caller=caller, run_id=run_id)
    await runs.touch(db, caller=caller, run_id=run_id, wait_s=wait)
    found = await wait_for_messages(
        db,
        hub,
        user_id=caller.user_id,
        conversation_id=conversation_id,
        after=after,
        wait_s=wait,
        limit=limit,
    )
    return [MessageOut.model_validate(m) for m in found]


@router.post("/{run_id}/status", response_model=RunOut, responses=ERRORS(*AUTHED, 409, 413))
async def report_status(
    run_id: int, body: RunStatusIn, caller: CurrentCaller, db: DbDep, settings: SettingsDep
) -> RunOut:
    """A `status` message (with `meta.progress`, 0-100) and the run's latest status."""
    run, _message = await runs.report_status(
        db,
        caller=caller,
        run_id=run_id,
        text=body.text,
        progress=body.progress,
        max_chars=settings.max_message_chars,
    )
    return RunOut.model_validate(run)


@router.post("/{run_id}/finish", response_model=RunOut, responses=ERRORS(*AUTHED, 409, 413))
async def finish_run(
    run_id: int, body: RunFinish, caller: CurrentCaller, db: DbDep, settings: SettingsDep
) -> RunOut:
    """End the run; its conversation becomes read-only (409 on any later write)."""
    run = await runs.finish_run(
        db,
        caller=caller,
        run_id=run_id,
        status=body.status,
        summary=body.summary,
        max_chars=settings.max_message_chars,
    )
    return RunOut.model_validate(run)
