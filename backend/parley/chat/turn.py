"""One chat turn, start to finish (DESIGN §3). Knows nothing about HTTP."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from parley import conversations
from parley.assistant.agent import TurnContext
from parley.assistant.runner import Assistant, AssistantFailed, Emit
from parley.chat import claim, lease
from parley.config import Settings
from parley.conversations import StoredMessage
from parley.db import Database, idempotent
from parley.errors import InvalidInput, ModelFailed, TooLarge
from parley.schemas import message_json
from parley.text import storable

log = logging.getLogger(__name__)


@dataclass
class TurnResult:
    conversation_id: int
    response: str
    tool_calls: list[dict[str, Any]]

    def body(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "response": self.response,
            "tool_calls": self.tool_calls,
        }


def clean_message(message: str, *, max_chars: int) -> str:
    text = message.strip() if isinstance(message, str) else ""
    if not text:
        raise InvalidInput("Message must not be empty", details=[{"field": "message"}])
    if len(text) > max_chars:
        raise TooLarge(f"Message is longer than {max_chars} characters", limit=max_chars)
    return storable(text, field="message", label="Message")


@dataclass
class StartedTurn:
    """A claimed turn whose user message is safely stored; the reply is still to come."""

    user_id: str
    conversation_id: int
    turn_id: str
    user_message: StoredMessage
    history: list[StoredMessage]


async def start_turn(
    *, db: Database, settings: Settings, user_id: str, conversation_id: int | None, message: str
) -> StartedTurn:
    """Validate, claim and store the user's message. Every refusal happens here, before
    anything is stored and before any model or tool runs."""
    text = clean_message(message, max_chars=settings.max_message_chars)
    turn_id = claim.new_turn_id()

    @idempotent  # keyed by the turn id: a start that did commit is not stored again
    async def claim_and_store() -> list[StoredMessage]:
        # One statement: a refusal (404, 409) or a failure leaves nothing behind, not even a
        # new conversation; success commits the claim and the person's message together.
        async with db.connection() as conn:
            return await claim.start(
                conn,
                turn_id=turn_id,
                user_id=user_id,
                conversation_id=conversation_id,
                title=conversations.title_from(text),
                ttl_seconds=settings.claim_seconds,
                content=text,
                history_limit=settings.history_limit,
            )

    history = await claim_and_store()
    user_message = history[-1]
    return StartedTurn(user_id, user_message.conversation_id, turn_id, user_message, history)


async def finish_turn(
    started: StartedTurn,
    *,
    db: Database,
    assistant: Assistant,
    settings: Settings,
    emit: Emit | None = None,
) -> TurnResult:
    """Run the assistant and store its reply (or the error) and complete the turn."""
    context = TurnContext(
        user_id=started.user_id,
        conversation_id=started.conversation_id,
        turn_id=started.turn_id,
        prompt_id=started.user_message.id,
    )
    try:
        async with lease.held(
            db,
            conversation_id=started.conversation_id,
            turn_id=started.turn_id,
            seconds=settings.claim_seconds,
        ):
            reply = await assistant.respond(
                history=started.history,
                context=context,
                emit=emit,
                time_limit=settings.turn_timeout * 0.9,
            )
    except AssistantFailed as failure:
        log.warning("turn failed in conversation %s: %s", started.conversation_id, failure.reason)
        content = f"Sorry, I couldn't answer that. {failure.reason}. You can try again."
        await _finish(db, started, emit, content, failure.partial.tool_calls, error=True)
        raise ModelFailed(failure.reason, conversation_id=started.conversation_id) from failure
    await _finish(db, started, emit, reply.text, reply.tool_calls, error=False)
    return TurnResult(
        conversation_id=started.conversation_id, response=reply.text, tool_calls=reply.tool_calls
    )


async def _finish(
    db: Database,
    started: StartedTurn,
    emit: Emit | None,
    content: str,
    tool_calls: list[dict[str, Any]],
    *,
    error: bool,
) -> None:
    """Store the reply and complete the turn: both happen or neither."""
    async with db.connection() as conn:
        stored = await claim.finish(
            conn,
            user_id=started.user_id,
            conversation_id=started.conversation_id,
            turn_id=started.turn_id,
            content=content,
            tool_calls=tool_calls or None,
            error=error,
        )
    if emit is not None:
        emit("message", message_json(stored))
