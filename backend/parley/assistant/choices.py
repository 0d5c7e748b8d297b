"""What a person chooses about their assistant: the model of each conversation (among those
the catalog offers) and their own instructions, given to it on every turn of theirs.
Knows nothing of HTTP; every statement is scoped to the person."""

from __future__ import annotations

from dataclasses import dataclass

from agents.models.interface import Model

from parley import conversations
from parley.assistant import store_instructions
from parley.assistant.catalog import ModelCatalog
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, WrongMode
from parley.models import ConversationMode
from parley.text import clean

INSTRUCTIONS_MAX_CHARS = 4000  # a page: enough to say how to answer, not a document


@dataclass(frozen=True)
class TurnChoices:
    model_name: str
    model: Model
    instructions: str


@retry_on_reconnect
async def instructions(db: Database, *, user_id: str) -> str:
    async with db.connection() as conn:
        return await store_instructions.read(conn, user_id=user_id)


async def set_instructions(db: Database, *, user_id: str, text: str) -> str:
    """Store the person's instructions as cleaned (blank: none); over the cap, or with what
    cannot be stored, is InvalidInput and changes nothing."""
    cleaned = (
        clean(text, field="text", label="Instructions", max_chars=INSTRUCTIONS_MAX_CHARS)
        if text.strip()
        else ""
    )
    async with db.connection() as conn:
        await store_instructions.write(conn, user_id=user_id, text=cleaned)
    return cleaned


async def choose_model(
    db: Database, catalog: ModelCatalog, *, user_id: str, conversation_id: int, model: str | None
) -> None:
    """Answer the conversation with `model` from now on (None: the configured one). A name
    the catalog does not offer now is refused, and nothing changes."""
    mode = await conversations.mode_of(db, user_id=user_id, conversation_id=conversation_id)
    if mode != ConversationMode.chat:
        raise WrongMode(
            "Only a chat conversation's replies come from a chosen model", mode=mode.value
        )
    if model is not None:
        offered = await catalog.offered()
        if model not in offered.models:
            raise InvalidInput(
                f"The model {model[:80]!r} is not offered here",
                code="model_not_offered",
                offered=offered.models,
            )
    async with db.connection() as conn:
        changed = await conversation_store.set_model(
            conn, user_id=user_id, conversation_id=conversation_id, model=model
        )
    if not changed:  # deleted in between
        raise conversations.not_found(conversation_id)


@retry_on_reconnect
async def for_turn(
    db: Database, catalog: ModelCatalog, *, user_id: str, conversation_id: int
) -> TurnChoices:
    """The model that answers this turn and the person's instructions for it."""
    async with db.connection() as conn:
        chosen = await conversation_store.chosen_model(
            conn, user_id=user_id, conversation_id=conversation_id
        )
        text = await store_instructions.read(conn, user_id=user_id)
    name, model = catalog.model_for(chosen)
    return TurnChoices(model_name=name, model=model, instructions=text)
