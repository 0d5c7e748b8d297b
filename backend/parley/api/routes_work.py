"""Work conversations: End and the session state. A prompt is `POST /chat` (or, without
waiting, the conversation's `POST .../messages`) and Stop is the conversation's Stop route;
each is taken by the work mode (`parley.modes.work`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from parley.api.deps import CurrentUser, ModesDep, PersonUser
from parley.api.errors import AUTHED, ERRORS
from parley.schemas import WorkEndResponse, WorkState

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["work"])


@router.post(
    "/{conversation_id}/work/end", response_model=WorkEndResponse, responses=ERRORS(*AUTHED)
)
async def end(conversation_id: int, user_id: PersonUser, modes: ModesDep) -> Any:
    """End the session: answered once it is recorded ended (run completed, status ended)
    and its process tree has been sent SIGKILL. Writing again starts the next session, with
    the earlier turns resumed. The person's own act: an agent's token is refused, as by the
    `end_work_session` tool."""
    mode = await modes.for_conversation(user_id=user_id, conversation_id=conversation_id)
    return {"ended": await mode.end(user_id=user_id, conversation_id=conversation_id)}


@router.get("/{conversation_id}/work", response_model=WorkState | None, responses=ERRORS(*AUTHED))
async def get_work(conversation_id: int, user_id: CurrentUser, modes: ModesDep) -> Any:
    """The session of a work conversation (`null` for other conversations)."""
    mode = await modes.for_conversation(user_id=user_id, conversation_id=conversation_id)
    found = await mode.states(user_id=user_id, conversation_ids=[conversation_id])
    return found.get(conversation_id)
