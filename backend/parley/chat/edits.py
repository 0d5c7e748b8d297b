"""Editing a sent message, and regenerating a reply, without rewriting what was said.

Both fork: a new chat conversation gets copies of the messages before the person's message,
and the caller then sends the (edited or same) text there as an ordinary turn. The original
conversation is never changed, so every earlier reply stays where it was, readable and
linked from the fork (each copy's `meta.copied_from` names the message it copies).
"""

from __future__ import annotations

from parley import conversations
from parley.conversations import not_found
from parley.conversations import store as conversation_store
from parley.db import Database
from parley.errors import InvalidInput
from parley.messages import store as messages
from parley.models import CONVERSATION_TITLE_MAX, ConversationMode, Role


def fork_title(title: str) -> str:
    suffix = " (edited)"
    return title[: CONVERSATION_TITLE_MAX - len(suffix)].rstrip() + suffix


async def fork_before(db: Database, *, user_id: str, conversation_id: int, message_id: int) -> int:
    """A new chat conversation holding copies of everything before `message_id` (a message
    the person wrote in their own chat conversation: the chat mode's fork, `parley.modes`);
    its id. Nothing changes on refusal."""
    conversations.check_id(conversation_id)
    async with db.connection() as conn, conn.transaction():
        title = await conversation_store.title(
            conn, user_id=user_id, conversation_id=conversation_id
        )
        if title is None:
            raise not_found(conversation_id)
        role = await messages.role_of(
            conn, user_id=user_id, conversation_id=conversation_id, message_id=message_id
        )
        if role != Role.user.value:
            raise InvalidInput(
                "message_id must name a message you wrote in this conversation",
                details=[{"field": "message_id"}],
            )
        created = await conversation_store.insert(
            conn, user_id=user_id, mode=ConversationMode.chat, title=fork_title(title)
        )
        # The fork is answered by the model the person chose for the original.
        chosen = await conversation_store.chosen_model(
            conn, user_id=user_id, conversation_id=conversation_id
        )
        if chosen is not None:
            await conversation_store.set_model(
                conn, user_id=user_id, conversation_id=created, model=chosen
            )
        # Copies keep their author, text, tool calls and time; `reply_to` pointed into the
        # original (parley/sql/copy_messages.sql).
        last = await messages.copy_before(
            conn, user_id=user_id, source=conversation_id, target=created, before=message_id
        )
        # The person has read everything copied: the fork starts with no unread badge.
        await conversation_store.set_read(
            conn, user_id=user_id, conversation_id=created, message_id=last
        )
    return created
