"""Conversations, and the reads of their messages a person is allowed (the statements on
`messages` are `parley.messages.store`'s, those on `conversations` this package's `store`).
Every query is scoped to the caller's user id, and names it: on a Citus cluster that is what
sends each to the one node holding the person's rows (specs/scale.md)."""

from __future__ import annotations

import asyncpg

from parley.conversations import store
from parley.conversations.store import ConversationRecord, ConversationSummary
from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import CONVERSATION_TITLE_MAX, MAX_BIGINT, ConversationMode
from parley.text import clean

__all__ = ["ConversationRecord", "ConversationSummary"]

MAX_ID = MAX_BIGINT  # conversations.id is a PostgreSQL bigint
DEFAULT_TITLE = "New conversation"


def title_from(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 60 else flat[:57].rstrip() + "…"


def clean_title(title: str) -> str:
    return clean(
        title, field="title", label="Title", max_chars=CONVERSATION_TITLE_MAX, one_line=True
    )


def not_found(conversation_id: int) -> NotFound:
    return NotFound(f"Conversation {conversation_id} not found", conversation_id=conversation_id)


def check_id(conversation_id: int) -> None:
    """An id no row can have is simply not found (asking PostgreSQL would overflow: a 500)."""
    if not 1 <= conversation_id <= MAX_ID:
        raise not_found(conversation_id)


async def create_conversation(
    db: Database,
    *,
    user_id: str,
    mode: ConversationMode = ConversationMode.chat,
    title: str | None = None,
) -> int:
    name = clean_title(title) if title else DEFAULT_TITLE
    async with db.connection() as conn:
        return await store.insert(conn, user_id=user_id, mode=mode, title=name)


@retry_on_reconnect
async def mode_of(db: Database, *, user_id: str, conversation_id: int) -> ConversationMode:
    """The conversation's mode (fixed at creation); 404 if it is not the user's."""
    check_id(conversation_id)
    async with db.connection() as conn:
        mode = await store.mode(conn, user_id=user_id, conversation_id=conversation_id)
    if mode is None:
        raise not_found(conversation_id)
    return ConversationMode(mode)


async def check_owned(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    check_id(conversation_id)
    if not await store.exists(conn, user_id=user_id, conversation_id=conversation_id):
        raise not_found(conversation_id)


@retry_on_reconnect
async def get_conversation(
    db: Database, *, user_id: str, conversation_id: int
) -> ConversationSummary:
    check_id(conversation_id)
    summaries = await summaries_of(db, user_id=user_id, ids=[conversation_id])
    if not summaries:
        raise not_found(conversation_id)
    return summaries[0]


@retry_on_reconnect
async def list_conversations(db: Database, *, user_id: str) -> list[ConversationSummary]:
    return await summaries_of(db, user_id=user_id)


async def summaries_of(
    db: Database, *, user_id: str, ids: list[int] | None = None
) -> list[ConversationSummary]:
    """The user's conversations (only those in `ids` when given), newest activity first."""
    async with db.connection() as conn:
        return await store.summaries(conn, user_id=user_id, ids=ids)


@retry_on_reconnect
async def rename_conversation(
    db: Database, *, user_id: str, conversation_id: int, title: str
) -> None:
    cleaned = clean_title(title)
    check_id(conversation_id)
    async with db.connection() as conn:
        renamed = await store.rename(
            conn, user_id=user_id, conversation_id=conversation_id, title=cleaned
        )
    if not renamed:
        raise not_found(conversation_id)


async def set_flag(
    db: Database, *, user_id: str, conversation_id: int, flag: str, on: bool
) -> None:
    """Archive or pin (`flag`), or undo it: the person's own list, nobody else's (404)."""
    check_id(conversation_id)
    async with db.connection() as conn:
        found = await store.set_flag(
            conn, user_id=user_id, conversation_id=conversation_id, flag=flag, on=on
        )
    if not found:
        raise not_found(conversation_id)


async def delete_conversation(db: Database, *, user_id: str, conversation_id: int) -> None:
    """Its messages go with it (ON DELETE CASCADE)."""
    check_id(conversation_id)
    async with db.connection() as conn:
        deleted = await store.delete(conn, user_id=user_id, conversation_id=conversation_id)
    if not deleted:
        raise not_found(conversation_id)


@retry_on_reconnect
async def list_messages(
    db: Database, *, user_id: str, conversation_id: int, after: int | None = None, limit: int = 50
) -> list[StoredMessage]:
    async with db.connection() as conn:
        await check_owned(conn, user_id=user_id, conversation_id=conversation_id)
        if after is None:
            return await messages.last_messages(
                conn, user_id=user_id, conversation_id=conversation_id, limit=limit
            )
        return await messages.messages_after(
            conn, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
        )


@retry_on_reconnect
async def turn_claimed(db: Database, *, user_id: str, conversation_id: int) -> bool:
    """Whether a turn holds the conversation now; 404 if it is not the user's."""
    check_id(conversation_id)
    async with db.connection() as conn:
        claimed = await store.claimed(conn, user_id=user_id, conversation_id=conversation_id)
    if claimed is None:
        raise not_found(conversation_id)
    return claimed


@retry_on_reconnect
async def latest_message_id(db: Database, *, user_id: str, conversation_id: int) -> int:
    """The newest message id (0 if none); 404 if the conversation is not the user's."""
    async with db.connection() as conn:
        await check_owned(conn, user_id=user_id, conversation_id=conversation_id)
        return await messages.latest_id(conn, user_id=user_id, conversation_id=conversation_id)


async def title_untitled(
    db: Database, *, user_id: str, conversation_id: int, first_message_id: int, text: str
) -> None:
    """A conversation created empty (from the UI's New button, or a work session) is named
    after the person's first message, like one created by that message."""
    async with db.connection() as conn:
        await store.title_untitled(
            conn,
            user_id=user_id,
            conversation_id=conversation_id,
            title=title_from(text),
            untitled=DEFAULT_TITLE,
            first_message_id=first_message_id,
        )
