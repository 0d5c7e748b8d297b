"""Messages written by people and agents outside the chat turn, read positions and the
inbox (questions: routes_questions.py)."""

from __future__ import annotations

from fastapi import APIRouter

from parley.api.deps import CurrentCaller, CurrentUser, DbDep, ModesDep, PersonUser
from parley.api.errors import AUTHED, ERRORS
from parley.auth import Caller
from parley.conversations import get_conversation
from parley.models import ConversationMode
from parley.modes import Mode, Posted
from parley.runs import inbox
from parley.runs.schemas import (
    MessageCreate,
    PostedOut,
    ReadPosition,
    UnreadOut,
)
from parley.schemas import ConversationOut, conversation_out, message_json

router = APIRouter(prefix="/api/{user_id}", tags=["agents"])


def posted_out(posted: Posted) -> PostedOut:
    return PostedOut(**message_json(posted.message), answered=posted.answered)


async def post(mode: Mode, body: MessageCreate, caller: Caller, conversation_id: int) -> PostedOut:
    """`body` written into a conversation whose mode the route knows (the inbox, a run's)."""
    posted = await mode.post(
        caller=caller,
        conversation_id=conversation_id,
        text=body.text,
        kind=body.kind,
        reply_to=body.reply_to,
        timeout_s=body.timeout_s,
    )
    return posted_out(posted)


@router.post(
    "/conversations/{conversation_id}/messages",
    response_model=PostedOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 413, 429),
)
async def post_to_conversation(
    conversation_id: int, body: MessageCreate, caller: CurrentCaller, modes: ModesDep
) -> PostedOut:
    """Write into an inbox, run or delegation conversation, as the token's agent
    (`role=agent`) or person (`role=user`). A person's message answers the question it
    replies to, or else the oldest open question here (then stored as `kind=answer`); in the
    inbox, the oldest open question the inbox shows (`GET /questions`' first, wherever asked),
    answered as `POST /questions/{id}/answer` answers it (a permission question by its words,
    else 422).
    In a work conversation the person's message goes to its Claude Code session without
    waiting: a prompt, or the answer to the permission question it replies to.
    A chat conversation takes `POST /chat` instead (409)."""
    return posted_out(
        await modes.post(
            caller=caller,
            conversation_id=conversation_id,
            text=body.text,
            kind=body.kind,
            reply_to=body.reply_to,
            timeout_s=body.timeout_s,
        )
    )


@router.post(
    "/conversations/{conversation_id}/read",
    response_model=UnreadOut,
    responses=ERRORS(*AUTHED),
)
async def mark_read(
    conversation_id: int, body: ReadPosition, user_id: PersonUser, db: DbDep
) -> UnreadOut:
    """The person has read up to `message_id` (the position never moves back)."""
    unread = await inbox.mark_read(
        db, caller=Caller(user_id), conversation_id=conversation_id, message_id=body.message_id
    )
    return UnreadOut(conversation_id=conversation_id, unread=unread)


@router.get("/inbox", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def get_inbox(user_id: CurrentUser, db: DbDep) -> ConversationOut:
    """The person's inbox conversation, created on first use."""
    found = await inbox.inbox_id(db, user_id=user_id)
    return conversation_out(await get_conversation(db, user_id=user_id, conversation_id=found))


@router.post(
    "/inbox/messages", response_model=PostedOut, status_code=201, responses=ERRORS(*AUTHED, 413)
)
async def post_to_inbox(
    body: MessageCreate, caller: CurrentCaller, db: DbDep, modes: ModesDep
) -> PostedOut:
    """Write into the inbox (created on first use): what an agent says first."""
    found = await inbox.inbox_id(db, user_id=caller.user_id)
    return await post(modes.of(ConversationMode.inbox), body, caller, found)
