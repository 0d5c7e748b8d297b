"""POST /api/{user_id}/chat, as JSON or as a stream of server-sent events."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header

from parley import events
from parley.api.deps import (
    AssistantDep,
    DbDep,
    LimiterDep,
    PersonUser,
    RunnerDep,
    SettingsDep,
    WorkDep,
)
from parley.api.errors import AUTHED, ERRORS
from parley.api.routes_work import work_chat
from parley.chat.turn import chat_work, start_turn
from parley.errors import WrongMode
from parley.models import ConversationMode
from parley.realtime.stream import sse_response
from parley.schemas import ChatRequest, ChatResponse, message_json

router = APIRouter(prefix="/api/{user_id}", tags=["chat"])
SSE = {"text/event-stream": {"description": "message, delta, tool_call, tool_result, done, error"}}


@router.post(
    "/chat",
    response_model=ChatResponse,
    responses={**ERRORS(*AUTHED, 409, 413, 429, 502), 200: {"content": SSE}},
)
async def chat(
    body: ChatRequest,
    user_id: PersonUser,
    db: DbDep,
    settings: SettingsDep,
    assistant: AssistantDep,
    limiter: LimiterDep,
    runner: RunnerDep,
    sessions: WorkDep,
    accept: Annotated[str | None, Header()] = None,
) -> Any:
    """Run one chat turn (or, with `retry`, re-run the failed last one). With
    `Accept: text/event-stream` the same turn streams as SSE."""
    limiter.check(user_id)
    try:
        started = await start_turn(
            db=db,
            settings=settings,
            user_id=user_id,
            conversation_id=body.conversation_id,
            message=body.message,
            retry=body.retry,
        )
    except WrongMode as other:  # the claim refused: the conversation is not a chat
        if other.mode != ConversationMode.work or body.conversation_id is None:
            raise
        return await work_chat(
            user_id=user_id,
            conversation_id=body.conversation_id,
            message=body.message,
            retry=body.retry,
            stream=bool(accept and "text/event-stream" in accept),
            db=db,
            settings=settings,
            runner=runner,
            work=sessions,
        )
    work = chat_work(started, db=db, assistant=assistant, settings=settings)
    if accept and "text/event-stream" in accept:
        first = [] if started.retry else [(events.MESSAGE, message_json(started.user_message))]
        return sse_response(
            runner.stream(started.conversation_id, work, first),
            shutdown_grace=settings.shutdown_grace_seconds,
            stop=lambda: runner.stop(started.conversation_id),
        )
    return (await runner.run(started.conversation_id, work)).body()  # validated by response_model
