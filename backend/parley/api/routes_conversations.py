"""Conversations and their stored messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from parley import conversations
from parley.api.deps import CurrentUser, DbDep, ModesDep
from parley.api.errors import AUTHED, ERRORS
from parley.conversations import ConversationSummary
from parley.conversations.export import export_conversation
from parley.db import Database
from parley.models import ConversationMode
from parley.modes import Modes
from parley.schemas import (
    BIGINT_END,
    ArchivedIn,
    ConversationCreate,
    ConversationOut,
    ConversationPatch,
    MessageOut,
    PinnedIn,
    StopResponse,
    conversation_out,
)

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["conversations"])


async def _out(
    modes: Modes, user_id: str, found: list[ConversationSummary]
) -> list[ConversationOut]:
    """Each conversation with the live state its mode shows (a work session's)."""
    states = await modes.states(
        user_id=user_id, found=[(s.conversation.id, s.conversation.mode) for s in found]
    )
    return [conversation_out(s, states.get(s.conversation.id)) for s in found]


@router.get("", response_model=list[ConversationOut], responses=ERRORS(*AUTHED))
async def list_conversations(
    user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> list[ConversationOut]:
    """Newest activity first, each with a preview of its last message."""
    found = await conversations.list_conversations(db, user_id=user_id)
    return await _out(modes, user_id, found)


async def _one(db: Database, modes: Modes, user_id: str, conversation_id: int) -> ConversationOut:
    found = await conversations.get_conversation(
        db, user_id=user_id, conversation_id=conversation_id
    )
    return (await _out(modes, user_id, [found]))[0]


@router.post("", response_model=ConversationOut, status_code=201, responses=ERRORS(*AUTHED))
async def create_conversation(
    body: ConversationCreate, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    created = await conversations.create_conversation(
        db, user_id=user_id, mode=ConversationMode(body.mode), title=body.title
    )
    return await _one(db, modes, user_id, created)


@router.get("/{conversation_id}", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def get_conversation(
    conversation_id: int, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    return await _one(db, modes, user_id, conversation_id)


@router.patch("/{conversation_id}", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def rename_conversation(
    conversation_id: int, body: ConversationPatch, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    await conversations.rename_conversation(
        db, user_id=user_id, conversation_id=conversation_id, title=body.title
    )
    return await _one(db, modes, user_id, conversation_id)


@router.put(
    "/{conversation_id}/archived", response_model=ConversationOut, responses=ERRORS(*AUTHED)
)
async def set_archived(
    conversation_id: int, body: ArchivedIn, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    """Archive (out of the conversation list, nothing deleted) or restore it."""
    await conversations.set_flag(
        db, user_id=user_id, conversation_id=conversation_id, flag="archived", on=body.archived
    )
    return await _one(db, modes, user_id, conversation_id)


@router.put("/{conversation_id}/pinned", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def set_pinned(
    conversation_id: int, body: PinnedIn, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    """Pin it at the top of the conversation list, or unpin it."""
    await conversations.set_flag(
        db, user_id=user_id, conversation_id=conversation_id, flag="pinned", on=body.pinned
    )
    return await _one(db, modes, user_id, conversation_id)


@router.get(
    "/{conversation_id}/export",
    responses={**ERRORS(*AUTHED), 200: {"content": {"text/markdown": {}, "application/json": {}}}},
    response_class=Response,
)
async def export(
    conversation_id: int,
    user_id: CurrentUser,
    db: DbDep,
    format: Annotated[str, Query(description="markdown or json")] = "markdown",
) -> Response:
    """The whole conversation as a file to download: Markdown to read, or JSON."""
    found = await export_conversation(
        db, user_id=user_id, conversation_id=conversation_id, fmt=format
    )
    return Response(
        found.body,
        media_type=found.media_type,
        headers={
            "content-disposition": f'attachment; filename="{found.filename}"',
            "cache-control": "no-store",
        },
    )


@router.delete("/{conversation_id}", status_code=204, responses=ERRORS(*AUTHED))
async def delete_conversation(
    conversation_id: int, user_id: CurrentUser, db: DbDep, modes: ModesDep
) -> Response:
    """A work conversation's session (its process tree) ends first."""
    mode = await modes.for_conversation(user_id=user_id, conversation_id=conversation_id)
    await mode.forget(user_id=user_id, conversation_id=conversation_id)
    await conversations.delete_conversation(db, user_id=user_id, conversation_id=conversation_id)
    return Response(status_code=204)


@router.post("/{conversation_id}/stop", response_model=StopResponse, responses=ERRORS(*AUTHED))
async def stop(conversation_id: int, user_id: CurrentUser, modes: ModesDep) -> StopResponse:
    """End the reply being written now: what it wrote so far is stored, marked
    `meta.stopped`, and the conversation is free at once. `stopped` is false when no reply
    was running. In a work conversation: interrupt Claude Code's current prompt."""
    mode = await modes.for_conversation(user_id=user_id, conversation_id=conversation_id)
    return StopResponse(stopped=await mode.stop(user_id=user_id, conversation_id=conversation_id))


@router.get(
    "/{conversation_id}/messages", response_model=list[MessageOut], responses=ERRORS(*AUTHED)
)
async def list_messages(
    conversation_id: int,
    user_id: CurrentUser,
    db: DbDep,
    after: Annotated[
        int | None, Query(ge=0, lt=BIGINT_END, description="Only messages with a larger id")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[MessageOut]:
    """Ascending by id: the last `limit` without `after`, else the first `limit` after it."""
    found = await conversations.list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )
    return [MessageOut.model_validate(m) for m in found]
