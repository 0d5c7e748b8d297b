"""POST /api/{user_id}/chat, as JSON or as a stream of server-sent events."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header

from parley.api.deps import LimiterDep, ModesDep, PersonUser, RunnerDep, SettingsDep
from parley.api.errors import AUTHED, ERRORS, event_stream
from parley.realtime.stream import sse_response
from parley.schemas import ChatRequest, ChatResponse

router = APIRouter(prefix="/api/{user_id}", tags=["chat"])


@router.post(
    "/chat",
    response_model=ChatResponse,
    responses={
        **ERRORS(*AUTHED, 409, 413, 429, 502),
        **event_stream("message, delta, tool_call, tool_result, done, error"),
    },
)
async def chat(
    body: ChatRequest,
    user_id: PersonUser,
    settings: SettingsDep,
    limiter: LimiterDep,
    runner: RunnerDep,
    modes: ModesDep,
    accept: Annotated[str | None, Header()] = None,
) -> Any:
    """Run one chat turn (or, with `retry`, re-run the failed last one; with `replaces`, edit
    a message or regenerate a reply on a new branch of the same conversation). With
    `Accept: text/event-stream` the same turn streams as SSE."""
    limiter.check(user_id)
    turn = await modes.turn(
        user_id=user_id,
        conversation_id=body.conversation_id,
        message=body.message,
        retry=body.retry,
        replaces=body.replaces,
        attachments=body.attachments,
    )
    if accept and "text/event-stream" in accept:
        if not turn.finishes_at_shutdown:
            return sse_response(runner.stream(turn.conversation_id, turn.work, turn.first))
        return sse_response(
            runner.stream(turn.conversation_id, turn.work, turn.first),
            shutdown_grace=settings.shutdown_grace_seconds,
            stop=lambda: runner.stop(turn.conversation_id),
        )
    return (await runner.run(turn.conversation_id, turn.work)).body()  # validated by response_model
