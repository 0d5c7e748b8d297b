"""GET .../conversations/{id}/events: everything that happens in a conversation, live."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Query, Request
from sse_starlette import EventSourceResponse

from parley import conversations
from parley.api.deps import CurrentUser, DbDep, HubDep, SettingsDep
from parley.api.errors import AUTHED, ERRORS, event_stream
from parley.errors import ParleyError
from parley.models import MAX_BIGINT
from parley.realtime.stream import conversation_stream
from parley.schemas import BIGINT_END
from parley.stated import stated

MAX_MESSAGE_ID = MAX_BIGINT  # messages.id is a bigint: a larger cursor would overflow

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["realtime"])

# An event id to resume after: a whole number (a 400 otherwise). The schema promises ids below
# 10**18; the server takes any up to the largest bigint.
LastEventId = Annotated[
    Annotated[str, stated(pattern=r"^0*[0-9]{0,18}$")] | None,
    Header(description="Resume after this event id (what the last event's `id:` said)"),
]


def _message_id(value: str) -> int | None:
    """A whole-number message id that fits a bigint, or None. ASCII digits only: "²" passes
    isdigit() but not int(); and a larger number would overflow the database query."""
    digits = value.lstrip("0") or "0"
    if not (value.isascii() and value.isdigit()) or len(digits) > 19:
        return None
    number = int(digits)
    return number if number <= MAX_MESSAGE_ID else None


def parse_cursor(after: int | None, last_event_id: str | None) -> int | None:
    if last_event_id is not None and last_event_id.strip():
        cursor = _message_id(last_event_id.strip())
        if cursor is None:
            raise ParleyError(
                "Last-Event-ID must be a message id (a whole number)", code="bad_last_event_id"
            )
        return cursor
    return after


@router.get(
    "/{conversation_id}/events",
    responses={
        **ERRORS(400, *AUTHED),
        **event_stream("message, delta, tool_call, tool_result, reply_end"),
    },
)
async def events(
    conversation_id: int,
    request: Request,
    user_id: CurrentUser,
    db: DbDep,
    settings: SettingsDep,
    hub: HubDep,
    after: Annotated[
        int | None,
        Query(ge=0, lt=BIGINT_END, description="Replay stored messages after this id"),
    ] = None,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """Stored messages carry `id:`; reconnect with `Last-Event-ID` (or `?after=`) to get exactly
    the ones missed. Without either, the stream starts from now. A reply being written
    arrives as `delta` events; joining mid-reply starts with one delta holding the text so far;
    `reply_end` names the message the reply was stored as."""
    cursor = parse_cursor(after, last_event_id)
    latest = await conversations.latest_message_id(
        db, user_id=user_id, conversation_id=conversation_id
    )
    start = latest if cursor is None else cursor
    return conversation_stream(
        hub,
        conversation_id,
        start,
        user_id=user_id,
        ping_seconds=settings.sse_ping_seconds,
        stall_seconds=settings.sse_stall_seconds,
        backlog_bytes=settings.sse_backlog_bytes,
    )
