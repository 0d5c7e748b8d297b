"""Work conversations: a person's prompts to Claude Code through `POST /chat`, End and the
session state (Stop is the conversation's Stop route; a message sent without waiting goes
through the conversation's generic `POST .../messages`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from parley import events
from parley.api.deps import CurrentUser, DbDep, WorkDep
from parley.api.errors import AUTHED, ERRORS
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database
from parley.errors import InvalidInput
from parley.realtime.stream import sse_response
from parley.schemas import WorkEndResponse, WorkState, message_json
from parley.work import service
from parley.work.manager import WorkManager

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["work"])


@router.post(
    "/{conversation_id}/work/end", response_model=WorkEndResponse, responses=ERRORS(*AUTHED)
)
async def end(conversation_id: int, user_id: CurrentUser, db: DbDep, work: WorkDep) -> Any:
    """End the session: its process tree is killed and its run completed. Writing again
    resumes it."""
    ended = await service.end(db, work, user_id=user_id, conversation_id=conversation_id)
    return {"ended": ended}


@router.get("/{conversation_id}/work", response_model=WorkState | None, responses=ERRORS(*AUTHED))
async def get_work(conversation_id: int, user_id: CurrentUser, db: DbDep) -> Any:
    """The session of a work conversation (`null` for other conversations)."""
    return await service.state(db, user_id=user_id, conversation_id=conversation_id)


# -- POST /chat on a work conversation ----------------------------------------------------


async def work_chat(
    *,
    user_id: str,
    conversation_id: int,
    message: str | None,
    retry: bool,
    stream: bool,
    db: Database,
    settings: Settings,
    runner: TurnRunner,
    work: WorkManager,
) -> Any:
    """A prompt sent the way a chat turn is, run by the same turn runner: JSON answers when
    the prompt's result arrives (its final text as `response`); SSE streams what the session
    does meanwhile, then `done`."""
    if retry:
        raise InvalidInput(
            "Retry is for chat turns; in a work conversation send the prompt again",
            code="nothing_to_retry",
            status=409,
        )
    sent = await service.send_to_work(
        db, work, settings, user_id=user_id, conversation_id=conversation_id, text=message or ""
    )
    job = service.prompt_work(sent, work, conversation_id=conversation_id)
    if stream:
        first = [(events.MESSAGE, message_json(sent.message))]
        return sse_response(runner.stream(conversation_id, job, first))
    return (await runner.run(conversation_id, job)).body()
