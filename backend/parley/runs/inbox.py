"""The inbox (one per person, where agents write first) and read positions.

Read positions are stored per conversation, so unread counts are the same on every device
and after a reload (see `parley.messages.store.unread_sql`). The statements are the
conversations store's.
"""

from __future__ import annotations

from parley.auth import Caller
from parley.conversations import check_id, not_found
from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput
from parley.messages import store as messages
from parley.models import MAX_BIGINT, ConversationMode


@retry_on_reconnect
async def inbox_id(db: Database, *, user_id: str) -> int:
    """The person's inbox, created on first use by either side (at most one: a unique index)."""
    async with db.connection() as conn:
        found = await conversation_store.inbox_id(conn, user_id=user_id)
        if found is not None:
            return found
        return await conversation_store.insert(
            conn, user_id=user_id, mode=ConversationMode.inbox, title="Inbox"
        )


@retry_on_reconnect
async def mark_read(db: Database, *, caller: Caller, conversation_id: int, message_id: int) -> int:
    """Move the read position forward to `message_id` (never back); returns the unread count.
    `message_id` must be a message of this conversation."""
    check_id(conversation_id)
    if not 1 <= message_id <= MAX_BIGINT:
        raise InvalidInput("message_id is not a message here", details=[{"field": "message_id"}])
    async with db.transaction() as conn:
        owned = await conversation_store.lock(
            conn, user_id=caller.user_id, conversation_id=conversation_id
        )
        if not owned:
            raise not_found(conversation_id)
        present = await messages.exists(
            conn, user_id=caller.user_id, conversation_id=conversation_id, message_id=message_id
        )
        if not present:
            raise InvalidInput(
                f"message_id {message_id} is not a message of conversation {conversation_id}",
                details=[{"field": "message_id"}],
            )
        return await conversation_store.read_up_to_counted(
            conn, user_id=caller.user_id, conversation_id=conversation_id, message_id=message_id
        )
