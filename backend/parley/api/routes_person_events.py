"""GET /api/{user_id}/events: one stream per person for everything outside the open
conversation (tasks, conversations, unread counts, runs, questions)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse

from parley.api.deps import CurrentUser, DbDep, ModesDep, SettingsDep, WaitsDep
from parley.api.errors import AUTHED, ERRORS
from parley.api.person_events import renderer
from parley.api.routes_events import MAX_MESSAGE_ID, parse_cursor
from parley.realtime.stream import StallGuard
from parley.realtime.user_stream import latest_event_id, person_events

router = APIRouter(prefix="/api/{user_id}", tags=["realtime"])


@router.get(
    "/events",
    responses={
        **ERRORS(400, *AUTHED),
        200: {
            "content": {
                "text/event-stream": {
                    "description": "ready, task, conversation, unread, run, question"
                }
            }
        },
    },
)
async def person_stream(
    user_id: CurrentUser,
    db: DbDep,
    waits: WaitsDep,
    modes: ModesDep,
    settings: SettingsDep,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_MESSAGE_ID, description="Replay events after this id")
    ] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """Starts with `ready` (`id:` = the cursor it starts from; from now without a cursor),
    then every change after it; reconnect with `Last-Event-ID` to get exactly the missed ones.
    Each event carries the current state of what changed."""
    cursor = parse_cursor(after, last_event_id)
    start = await latest_event_id(db, user_id=user_id) if cursor is None else cursor
    return StallGuard(
        person_events(
            db,
            waits,
            user_id=user_id,
            after=start,
            ping_seconds=settings.sse_ping_seconds,
            render=renderer(db, modes, user_id=user_id),
        ),
        stall_seconds=settings.sse_stall_seconds,
        ping=0,
    )
