"""Conversations and their messages. Every query is scoped to the caller's user id."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from parley.db import Database
from parley.errors import InvalidInput, NotFound
from parley.models import Conversation, ConversationMode, Message, MessageKind, Role

TITLE_MAX = 200
MAX_ID = 2**31 - 1  # conversations.id is a PostgreSQL integer
# The channel the messages_notify trigger (migration 0002) announces inserts on.
NOTIFY_CHANNEL = "parley_messages"
# First key of the two-key advisory lock serialising inserts into one conversation.
CONVERSATION_LOCK_SPACE = 1
DEFAULT_TITLE = "New conversation"


# Messages travel as plain rows (attribute access like the model, no ORM identity map or
# change tracking): a turn reads 50 and writes 2 of them, and a stream reads many more.
MessageRow = sa.Row[Any]
_messages = Message.__table__  # type: ignore[attr-defined]


@dataclass
class ConversationSummary:
    conversation: Conversation
    preview: str | None
    last_message_at: datetime | None


def title_from(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 60 else flat[:57].rstrip() + "…"


def clean_title(title: str) -> str:
    cleaned = " ".join(title.split()) if isinstance(title, str) else ""
    if not cleaned:
        raise InvalidInput("Title must not be empty", details=[{"field": "title"}])
    if len(cleaned) > TITLE_MAX:
        raise InvalidInput(
            f"Title must be at most {TITLE_MAX} characters", details=[{"field": "title"}]
        )
    if "\x00" in cleaned:  # PostgreSQL text cannot hold NUL: refuse it, not fail on insert
        raise InvalidInput("Title must not contain NUL characters", details=[{"field": "title"}])
    return cleaned


async def create_conversation(
    db: Database,
    *,
    user_id: str,
    mode: ConversationMode = ConversationMode.chat,
    title: str | None = None,
) -> Conversation:
    conversation = Conversation(
        user_id=user_id, mode=mode.value, title=clean_title(title) if title else DEFAULT_TITLE
    )
    async with db.transaction() as session:
        session.add(conversation)
    return conversation


async def owned(session: AsyncSession, *, user_id: str, conversation_id: int) -> Conversation:
    # An id no row can have is simply not found (asking PostgreSQL would overflow: a 500).
    in_range = 1 <= conversation_id <= MAX_ID
    conversation = await session.get(Conversation, conversation_id) if in_range else None
    if conversation is None or conversation.user_id != user_id:
        raise NotFound(f"Conversation {conversation_id} not found", conversation_id=conversation_id)
    return conversation


async def get_conversation(
    db: Database, *, user_id: str, conversation_id: int
) -> ConversationSummary:
    async with db.session() as session:
        await owned(session, user_id=user_id, conversation_id=conversation_id)
    summaries = await _summaries(db, user_id=user_id, conversation_id=conversation_id)
    return summaries[0]


async def list_conversations(db: Database, *, user_id: str) -> list[ConversationSummary]:
    return await _summaries(db, user_id=user_id)


async def _summaries(
    db: Database, *, user_id: str, conversation_id: int | None = None
) -> list[ConversationSummary]:
    last = (
        sa.select(col(Message.content), col(Message.created_at))
        .where(col(Message.conversation_id) == col(Conversation.id))
        .order_by(col(Message.id).desc())
        .limit(1)
        .lateral("last")
    )
    activity = sa.func.greatest(
        col(Conversation.updated_at),
        sa.func.coalesce(last.c.created_at, col(Conversation.updated_at)),
    )
    query = (
        sa.select(Conversation, last.c.content, last.c.created_at)
        .outerjoin(last, sa.true())
        .where(col(Conversation.user_id) == user_id)
        .order_by(activity.desc(), col(Conversation.id).desc())
    )
    if conversation_id is not None:
        query = query.where(col(Conversation.id) == conversation_id)
    async with db.session() as session:
        rows = (await session.execute(query)).all()
    return [
        ConversationSummary(conversation=c, preview=_preview(content), last_message_at=at)
        for c, content, at in rows
    ]


def _preview(content: str | None) -> str | None:
    if content is None:
        return None
    flat = " ".join(content.split())
    return flat if len(flat) <= 120 else flat[:117] + "…"


async def rename_conversation(
    db: Database, *, user_id: str, conversation_id: int, title: str
) -> None:
    cleaned = clean_title(title)
    async with db.transaction() as session:
        conversation = await owned(session, user_id=user_id, conversation_id=conversation_id)
        conversation.title = cleaned
        conversation.updated_at = sa.func.now()  # type: ignore[assignment]


async def delete_conversation(db: Database, *, user_id: str, conversation_id: int) -> None:
    async with db.transaction() as session:
        conversation = await owned(session, user_id=user_id, conversation_id=conversation_id)
        await session.delete(conversation)


async def list_messages(
    db: Database, *, user_id: str, conversation_id: int, after: int | None = None, limit: int = 50
) -> list[MessageRow]:
    async with db.session() as session:
        await owned(session, user_id=user_id, conversation_id=conversation_id)
        if after is None:
            return await last_messages(session, conversation_id=conversation_id, limit=limit)
        return await messages_after(
            session, conversation_id=conversation_id, after=after, limit=limit
        )


async def latest_message_id(db: Database, *, user_id: str, conversation_id: int) -> int:
    """The newest message id (0 if none); 404 if the conversation is not the user's."""
    async with db.session() as session:
        await owned(session, user_id=user_id, conversation_id=conversation_id)
        latest = await session.scalar(
            sa.select(sa.func.max(col(Message.id))).where(
                col(Message.conversation_id) == conversation_id
            )
        )
    return int(latest or 0)


async def messages_after(
    session: AsyncSession, *, conversation_id: int, after: int, limit: int
) -> list[MessageRow]:
    query = (
        sa.select(_messages)
        .where(_in_conversation(conversation_id), col(Message.id) > after)
        # The index backwards: (conversation_id DESC, id ASC), i.e. ascending ids.
        .order_by(col(Message.conversation_id).desc(), col(Message.id))
        .limit(limit)
    )
    return list((await session.execute(query)).all())


def _in_conversation(conversation_id: int) -> sa.ColumnElement[bool]:
    """`conversation_id = ANY([id])` rather than `= id`: with a plain equality PostgreSQL may
    walk the primary key backwards and filter, which gets slower with every message written
    since (in any conversation); this form can only be served, in order, by the
    (conversation_id, id DESC) index, so loading the last 50 costs the same at any size."""
    return col(Message.conversation_id) == sa.any_(
        sa.literal([conversation_id], sa.ARRAY(sa.Integer))
    )


async def last_messages(
    session: AsyncSession, *, conversation_id: int, limit: int
) -> list[MessageRow]:
    """The newest `limit` messages, oldest first; walks (conversation_id, id DESC) only."""
    query = (
        sa.select(_messages)
        .where(_in_conversation(conversation_id))
        .order_by(col(Message.conversation_id), col(Message.id).desc())
        .limit(limit)
    )
    rows = list((await session.execute(query)).all())
    rows.reverse()
    return rows


async def append_message(
    session: AsyncSession,
    *,
    conversation_id: int,
    user_id: str,
    role: Role,
    content: str,
    author: str | None = None,
    kind: MessageKind = MessageKind.message,
    tool_calls: list[dict[str, Any]] | None = None,
    error: bool = False,
    reply_to: int | None = None,
    meta: dict[str, Any] | None = None,
) -> MessageRow:
    """Insert a message; a trigger announces it to every listener once the transaction
    commits (NOTIFY is transactional, so a rolled-back message is never announced).
    The per-conversation lock makes ids commit in order within a conversation, so a
    reader resuming "after id N" can never skip a message that committed late.
    """
    await session.execute(
        sa.select(sa.func.pg_advisory_xact_lock(CONVERSATION_LOCK_SPACE, conversation_id))
    )
    statement = (
        sa.insert(_messages)
        .values(
            conversation_id=conversation_id,
            user_id=user_id,
            role=role.value,
            content=content,
            author=author,
            kind=kind.value,
            tool_calls=tool_calls,
            error=error,
            reply_to=reply_to,
            meta=meta,
        )
        .returning(*_messages.c)
    )
    return (await session.execute(statement)).one()
