"""`chat`: the task assistant. A person's message is a turn (claimed, stored, answered by the
assistant through the turn runner); Stop ends the reply being written; its messages can be
edited and its replies regenerated on new branches of the same conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from parley import events
from parley.auth import Caller
from parley.errors import ParleyError
from parley.models import ConversationMode
from parley.modes.base import Mode, Posted, Turn
from parley.schemas import message_json


class ChatMode(Mode):
    mode: ClassVar[ConversationMode] = ConversationMode.chat
    person_creates: ClassVar[bool] = True
    turn_checks_conversation: ClassVar[bool] = True

    async def turn(
        self,
        *,
        user_id: str,
        conversation_id: int | None,
        text: str | None,
        retry: bool,
        replaces: int | None = None,
        attachments: Sequence[int] = (),
    ) -> Turn:
        # Imported where a turn runs: the chat turn loads the assistant (the Agents SDK), which
        # a process that only posts (`parley mcp`) never needs.
        from parley.chat.turn import chat_work, start_turn

        p = self.parts
        started = await start_turn(
            db=p.db,
            settings=p.settings,
            user_id=user_id,
            conversation_id=conversation_id,
            text=text,
            retry=retry,
            replaces=replaces,
            attachments=attachments,
        )
        # A retry or a regenerated reply stores no message of the person's before the reply.
        stored = text is not None
        return Turn(
            started.conversation_id,
            chat_work(started, db=p.db, assistant=p.model, settings=p.settings),
            first=[(events.MESSAGE, message_json(started.user_message))] if stored else [],
            finishes_at_shutdown=True,
        )

    async def post(
        self,
        *,
        caller: Caller,
        conversation_id: int,
        text: str,
        kind: str,
        reply_to: int | None,
        timeout_s: float | None,
    ) -> Posted:
        """Nothing is posted into a chat: every message there is a turn the assistant answers."""
        raise ParleyError(
            "A chat conversation takes messages through POST /chat",
            code="not_writable",
            status=409,
        )

    async def stop(self, *, user_id: str, conversation_id: int) -> bool:
        from parley.chat.turn import stop_turn

        p = self.parts
        return await stop_turn(
            db=p.db, runner=p.turns, user_id=user_id, conversation_id=conversation_id
        )
