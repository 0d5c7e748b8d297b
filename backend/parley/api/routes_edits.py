"""POST .../conversations/{id}/fork: edit a sent message, or regenerate a reply."""

from __future__ import annotations

from fastapi import APIRouter

from parley import conversations
from parley.api.deps import DbDep, ModesDep, PersonUser
from parley.api.errors import AUTHED, ERRORS
from parley.schemas import ConversationOut, ForkRequest, conversation_out

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["conversations"])


@router.post(
    "/{conversation_id}/fork",
    response_model=ConversationOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 422),
)
async def fork(
    conversation_id: int, body: ForkRequest, user_id: PersonUser, db: DbDep, modes: ModesDep
) -> ConversationOut:
    """A new chat conversation with copies of every message before `message_id` (one the
    person wrote); the original is left as it is. To edit a message, fork before it and send
    the new text there; to regenerate a reply, fork before the message it answers and send
    that message again. Each copy's `meta.copied_from` names its original."""
    mode = await modes.for_conversation(user_id=user_id, conversation_id=conversation_id)
    created = await mode.fork_before(
        user_id=user_id, conversation_id=conversation_id, message_id=body.message_id
    )
    found = await conversations.get_conversation(db, user_id=user_id, conversation_id=created)
    return conversation_out(found, None)
