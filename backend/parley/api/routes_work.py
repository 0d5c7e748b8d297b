"""Work conversations: a person's prompts to Claude Code, Stop, End and the session state."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from parley import conversations
from parley.api.deps import CurrentUser, DbDep, SettingsDep, WorkDep
from parley.api.errors import AUTHED, ERRORS
from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError
from parley.realtime.hub import Hub
from parley.schemas import MessageOut, SendRequest, StopResponse, WorkEndResponse, WorkState
from parley.work import service
from parley.work.manager import WorkFailed, WorkManager
from parley.work.session import SessionFailed

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["work"])

DRAIN_SECONDS = 5.0


@router.post(
    "/{conversation_id}/messages",
    response_model=MessageOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 413, 429, 502, 503),
)
async def send_message(
    conversation_id: int,
    body: SendRequest,
    user_id: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    work: WorkDep,
) -> MessageOut:
    """Write into a work conversation without waiting: a prompt for Claude Code, or (with
    `reply_to` = a permission question, or a plain "allow"/"deny" while one is open) the
    answer to it. What follows arrives on the conversation's event stream."""
    sent = await service.send_to_work(
        db,
        work,
        settings,
        user_id=user_id,
        conversation_id=conversation_id,
        text=body.text,
        reply_to=body.reply_to,
    )
    if sent.prompt is not None:  # nobody waits for it: its failure is in the conversation
        sent.prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())
    return MessageOut.model_validate(sent.message)


@router.post("/{conversation_id}/stop", response_model=StopResponse, responses=ERRORS(*AUTHED))
async def stop(conversation_id: int, user_id: CurrentUser, db: DbDep, work: WorkDep) -> Any:
    """Interrupt the prompt Claude Code is working on; the session stays."""
    stopped = await service.stop(db, work, user_id=user_id, conversation_id=conversation_id)
    return {"stopped": stopped}


@router.post(
    "/{conversation_id}/work/end", response_model=WorkEndResponse, responses=ERRORS(*AUTHED)
)
async def end(conversation_id: int, user_id: CurrentUser, db: DbDep, work: WorkDep) -> Any:
    """End the session: its process tree is killed and its run completed. Writing again
    resumes it."""
    ended = await service.end(db, work, user_id=user_id, conversation_id=conversation_id)
    return {"ended": ended}


@router.get("/{conversation_id}/work", response_model=WorkState, responses=ERRORS(*AUTHED))
async def get_work(conversation_id: int, user_id: CurrentUser, db: DbDep) -> Any:
    return await service.state(db, user_id=user_id, conversation_id=conversation_id)


# -- POST /chat on a work conversation ----------------------------------------------------


async def work_chat(
    request: Request,
    *,
    user_id: str,
    conversation_id: int,
    message: str,
    stream: bool,
    db: Database,
    settings: Settings,
    work: WorkManager,
) -> Any:
    """A prompt sent the way a chat turn is: JSON answers when the prompt's result arrives
    (its final text as `response`); SSE streams everything the session does meanwhile."""
    if not stream:
        sent = await service.send_to_work(
            db, work, settings, user_id=user_id, conversation_id=conversation_id, text=message
        )
        return _body(conversation_id, await _result_text(sent, conversation_id))
    hub: Hub = request.app.state.hub
    latest = await conversations.latest_message_id(
        db, user_id=user_id, conversation_id=conversation_id
    )
    sub = await hub.subscribe(conversation_id, latest)
    try:
        sent = await service.send_to_work(
            db, work, settings, user_id=user_id, conversation_id=conversation_id, text=message
        )
    except BaseException:
        hub.unsubscribe(sub)
        raise

    async def events() -> AsyncIterator[ServerSentEvent]:
        outcome = asyncio.create_task(_result_text(sent, conversation_id))
        try:
            while not outcome.done():
                getter = asyncio.ensure_future(sub.get())
                await asyncio.wait({getter, outcome}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield _sse(*getter.result())
                else:
                    getter.cancel()
            last = await conversations.latest_message_id(
                db, user_id=user_id, conversation_id=conversation_id
            )
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_SECONDS):
                    while sub.last_id < last:
                        yield _sse(*await sub.get())
            try:
                yield ServerSentEvent(
                    data=json.dumps(_body(conversation_id, outcome.result())), event="done"
                )
            except ParleyError as exc:
                yield ServerSentEvent(data=json.dumps(exc.body()), event="error")
        finally:
            hub.unsubscribe(sub)
            outcome.cancel()

    return EventSourceResponse(events(), ping=15)


def _sse(event: str, data: str, message_id: int | None) -> ServerSentEvent:
    return ServerSentEvent(data=data, event=event, id=str(message_id) if message_id else None)


def _body(conversation_id: int, response: str) -> dict[str, Any]:
    return {"conversation_id": conversation_id, "response": response, "tool_calls": []}


async def _result_text(sent: service.Sent, conversation_id: int) -> str:
    if sent.prompt is None:
        return "Answer recorded."
    try:
        result = await asyncio.shield(sent.prompt.future)
    except SessionFailed as failure:
        raise WorkFailed(str(failure), conversation_id=conversation_id) from failure
    if result.is_error:
        detail = "; ".join(result.errors or []) or result.result or result.subtype
        raise WorkFailed(
            f"Claude Code could not finish this prompt: {detail}", conversation_id=conversation_id
        )
    if result.stop_reason == "tool_deferred":
        return "Claude Code is waiting for your answer to its permission question."
    return result.result or ""
