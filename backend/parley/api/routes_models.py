"""The model picker (the models offered, a conversation's choice) and a person's own
instructions to the assistant (Account → Instructions)."""

from __future__ import annotations

from fastapi import APIRouter

from parley import conversations
from parley.api.deps import AssistantDep, CurrentUser, DbDep
from parley.api.errors import AUTHED, ERRORS
from parley.assistant import choices
from parley.assistant.schemas import InstructionsIn, InstructionsOut, ModelChoice, ModelsOut
from parley.schemas import ConversationOut, conversation_out

router = APIRouter(prefix="/api/{user_id}", tags=["assistant"])

UNREACHABLE = (
    "The model provider could not be reached: only the configured model and the offline"
    " one are listed."
)


@router.get("/models", response_model=ModelsOut, responses=ERRORS(*AUTHED))
async def list_models(user_id: CurrentUser, assistant: AssistantDep) -> ModelsOut:
    """Never fails for the provider: when it is down, what is known is listed."""
    offered = await assistant.catalog.offered()
    return ModelsOut(
        models=offered.models,
        default=offered.default,
        provider_reachable=offered.provider_reachable,
        notice=UNREACHABLE if offered.provider_reachable is False else None,
    )


@router.put(
    "/conversations/{conversation_id}/model",
    response_model=ConversationOut,
    responses=ERRORS(*AUTHED, 409),
)
async def choose_model(
    conversation_id: int,
    body: ModelChoice,
    user_id: CurrentUser,
    db: DbDep,
    assistant: AssistantDep,
) -> ConversationOut:
    """From the next reply on; a name not offered now is a 422 (`model_not_offered`)."""
    await choices.choose_model(
        db, assistant.catalog, user_id=user_id, conversation_id=conversation_id, model=body.model
    )
    found = await conversations.get_conversation(
        db, user_id=user_id, conversation_id=conversation_id
    )
    return conversation_out(found)


@router.get("/instructions", response_model=InstructionsOut, responses=ERRORS(*AUTHED))
async def get_instructions(user_id: CurrentUser, db: DbDep) -> InstructionsOut:
    return InstructionsOut(text=await choices.instructions(db, user_id=user_id))


@router.put("/instructions", response_model=InstructionsOut, responses=ERRORS(*AUTHED))
async def set_instructions(
    body: InstructionsIn, user_id: CurrentUser, db: DbDep
) -> InstructionsOut:
    """Over INSTRUCTIONS_MAX_CHARS is a 422 and the stored ones stay."""
    return InstructionsOut(text=await choices.set_instructions(db, user_id=user_id, text=body.text))
