"""Conversations and their stored messages."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from parley import conversations
from parley.api.deps import CurrentUser, DbDep, RunnerDep, WorkDep
from parley.api.errors import AUTHED, ERRORS
from parley.chat.turn import stop_turn
from parley.conversations import ConversationSummary
from parley.db import Database
from parley.models import ConversationMode
from parley.schemas import (
    ConversationCreate,
    ConversationOut,
    ConversationPatch,
    MessageOut,
    StopResponse,
    conversation_out,
)
from parley.work import service as work_service

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["conversations"])


def _out(
    summary: ConversationSummary, work: dict[int, dict[str, Any]] | None = None
) -> ConversationOut:
    return conversation_out(summary, (work or {}).get(summary.conversation.id))


@router.get("", response_model=list[ConversationOut], responses=ERRORS(*AUTHED))
async def list_conversations(user_id: CurrentUser, db: DbDep) -> list[ConversationOut]:
    """Newest activity first, each with a preview of its last message."""
    found = await conversations.list_conversations(db, user_id=user_id)
    work = await _work_states(db, user_id, found)
    return [_out(s, work) for s in found]


async def _work_states(
    db: Database, user_id: str, found: list[ConversationSummary]
) -> dict[int, dict[str, Any]]:
    ids = [s.conversation.id for s in found if s.conversation.mode == ConversationMode.work.value]
    return await work_service.states(db, user_id=user_id, conversation_ids=ids) if ids else {}


async def _one(db: Database, user_id: str, conversation_id: int) -> ConversationOut:
    found = await conversations.get_conversation(
        db, user_id=user_id, conversation_id=conversation_id
    )
    return _out(found, await _work_states(db, user_id, [found]))


@router.post("", response_model=ConversationOut, status_code=201, responses=ERRORS(*AUTHED))
async def create_conversation(
    body: ConversationCreate, user_id: CurrentUser, db: DbDep
) -> ConversationOut:
    created = await conversations.create_conversation(
        db, user_id=user_id, mode=ConversationMode(body.mode), title=body.title
    )
    return await _one(db, user_id, created)


@router.get("/{conversation_id}", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def get_conversation(
    conversation_id: int, user_id: CurrentUser, db: DbDep
) -> ConversationOut:
    return await _one(db, user_id, conversation_id)


@router.patch("/{conversation_id}", response_model=ConversationOut, responses=ERRORS(*AUTHED))
async def rename_conversation(
    conversation_id: int, body: ConversationPatch, user_id: CurrentUser, db: DbDep
) -> ConversationOut:
    await conversations.rename_conversation(
        db, user_id=user_id, conversation_id=conversation_id, title=body.title
    )
    return await _one(db, user_id, conversation_id)


@router.delete("/{conversation_id}", status_code=204, responses=ERRORS(*AUTHED))
async def delete_conversation(
    conversation_id: int, user_id: CurrentUser, db: DbDep, work: WorkDep
) -> Response:
    """A work conversation's session (its process tree) ends first."""
    if await work_service.is_work(db, user_id=user_id, conversation_id=conversation_id):
        await work.end(conversation_id=conversation_id)
    await conversations.delete_conversation(db, user_id=user_id, conversation_id=conversation_id)
    return Response(status_code=204)


@router.post("/{conversation_id}/stop", response_model=StopResponse, responses=ERRORS(*AUTHED))
async def stop(
    conversation_id: int, user_id: CurrentUser, db: DbDep, runner: RunnerDep, work: WorkDep
) -> StopResponse:
    """End the reply being written now: what it wrote so far is stored, marked
    `meta.stopped`, and the conversation is free at once. `stopped` is false when no reply
    was running. In a work conversation: interrupt Claude Code's current prompt."""
    if await work_service.is_work(db, user_id=user_id, conversation_id=conversation_id):
        return StopResponse(stopped=await work.stop(conversation_id))
    stopped = await stop_turn(
        db=db, runner=runner, user_id=user_id, conversation_id=conversation_id
    )
    return StopResponse(stopped=stopped)


@router.get(
    "/{conversation_id}/messages", response_model=list[MessageOut], responses=ERRORS(*AUTHED)
)
async def list_messages(
    conversation_id: int,
    user_id: CurrentUser,
    db: DbDep,
    after: Annotated[
        int | None, Query(ge=0, le=2**63 - 1, description="Only messages with a larger id")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[MessageOut]:
    """Ascending by id: the last `limit` without `after`, else the first `limit` after it."""
    found = await conversations.list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )
    return [MessageOut.model_validate(m) for m in found]
