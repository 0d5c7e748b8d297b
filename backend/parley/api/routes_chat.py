"""POST /api/{user_id}/chat, as JSON or as a stream of server-sent events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from parley.api.deps import AssistantDep, DbDep, LimiterDep, PersonUser, SettingsDep
from parley.api.errors import AUTHED, ERRORS
from parley.assistant.runner import Emit
from parley.chat.turn import StartedTurn, TurnResult, finish_turn, start_turn
from parley.errors import ParleyError
from parley.realtime.notifier import Notifier
from parley.realtime.stream import live_emitter
from parley.schemas import ChatRequest, ChatResponse, message_json

router = APIRouter(prefix="/api/{user_id}", tags=["chat"])

_DONE = object()


def spawn(request: Request, coro: Coroutine[Any, Any, TurnResult]) -> asyncio.Task[TurnResult]:
    """Run the rest of a turn detached from the request: a client that goes away does not
    cancel it, so the reply is still stored. The app waits for these at shutdown."""
    tasks: set[asyncio.Task[Any]] = request.app.state.turn_tasks
    task = asyncio.create_task(coro)
    tasks.add(task)
    task.add_done_callback(tasks.discard)
    return task


@router.post(
    "/chat",
    response_model=ChatResponse,
    responses={
        **ERRORS(*AUTHED, 409, 413, 429, 502),
        200: {
            "content": {
                "text/event-stream": {
                    "description": "SSE: message, delta, tool_call, tool_result, done, error"
                }
            }
        },
    },
)
async def chat(
    body: ChatRequest,
    request: Request,
    user_id: PersonUser,
    db: DbDep,
    settings: SettingsDep,
    assistant: AssistantDep,
    limiter: LimiterDep,
    accept: Annotated[str | None, Header()] = None,
) -> Any:
    """Run one chat turn. With `Accept: text/event-stream` the same turn streams as SSE."""
    limiter.check(user_id)
    started = await start_turn(
        db=db,
        settings=settings,
        user_id=user_id,
        conversation_id=body.conversation_id,
        message=body.message,
    )
    deps = {"db": db, "settings": settings, "assistant": assistant}
    if accept and "text/event-stream" in accept:
        return _stream(request, started, deps)
    task = spawn(request, _watched(request, started, None, deps))
    result = await asyncio.shield(task)
    return result.body()  # validated once, by response_model


async def _watched(
    request: Request, started: StartedTurn, also: Emit | None, deps: dict[str, Any]
) -> TurnResult:
    """The rest of the turn, with its live events shown to everyone watching."""
    notifier: Notifier = request.app.state.notifier
    emit = live_emitter(notifier, started.conversation_id, also)
    try:
        return await finish_turn(started, emit=emit, **deps)
    finally:
        notifier.publish_live(started.conversation_id, "turn_end", {})


def _stream(request: Request, started: StartedTurn, deps: dict[str, Any]) -> Response:
    queue: asyncio.Queue[Any] = asyncio.Queue()

    def emit(event: str, data: dict[str, Any]) -> None:
        queue.put_nowait((event, data))

    async def run() -> TurnResult:
        try:
            result = await _watched(request, started, emit, deps)
            queue.put_nowait(("done", result.body()))
            return result
        except ParleyError as exc:
            queue.put_nowait(("error", exc.body()))
            raise
        finally:
            queue.put_nowait(_DONE)

    queue.put_nowait(("message", message_json(started.user_message)))
    task = spawn(request, run())
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no warning

    async def events() -> AsyncIterator[ServerSentEvent]:
        while (item := await queue.get()) is not _DONE:
            event, data = item
            message_id = data.get("id") if event == "message" else None
            yield ServerSentEvent(
                data=json.dumps(data), event=event, id=str(message_id) if message_id else None
            )

    return EventSourceResponse(events(), ping=15)
