"""Conversations and their messages. Every query is scoped to the caller's user id, and
names it: on a Citus cluster that is what sends each to the one node holding the person's
rows (specs/scale.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.models import (
    CONVERSATION_TITLE_MAX,
    MAX_BIGINT,
    Conversation,
    ConversationMode,
    Message,
    MessageKind,
    Role,
    columns,
)
from parley.schemas import ConversationShown, MessageOut
from parley.text import clean

MAX_ID = MAX_BIGINT  # conversations.id is a PostgreSQL bigint
DEFAULT_TITLE = "New conversation"


class StoredMessage(MessageOut):
    """A row of `messages`, validated by column name: the wire shape (`MessageOut`, the one
    definition of a message's fields) plus what stays inside the server. Its fields are the
    table's columns (tests/test_models.py checks it)."""

    user_id: str
    xid: int | None = None  # the writing transaction's id (realtime.reader); not sent out


MESSAGE_COLUMNS = columns(Message)


class ConversationRecord(ConversationShown):
    """A row of `conversations`, validated by column name: the columns the API shows
    (`ConversationShown`) plus its owner; the claim stays inside."""

    user_id: str


CONVERSATION_COLUMNS = columns(Conversation, ConversationRecord, alias="c")


@dataclass
class ConversationSummary:
    conversation: ConversationRecord
    preview: str | None
    last_message_at: datetime | None
    unread: int = 0


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


# The one insert into `conversations` (`parley_start_turn` makes a chat's in SQL). The
# conflict clause names the partial unique index of inboxes, so it only ever applies to an
# inbox: a second one created at the same moment returns the first.
_INSERT = """
INSERT INTO conversations (user_id, mode, title) VALUES ($1, $2, $3)
ON CONFLICT (user_id) WHERE mode = 'inbox' DO UPDATE SET mode = 'inbox'
RETURNING id
"""


async def insert_conversation(
    conn: asyncpg.Connection, *, user_id: str, mode: ConversationMode, title: str
) -> int:
    """A new conversation (the person's inbox if it exists already); `title` is clean."""
    created: int = await conn.fetchval(_INSERT, user_id, mode.value, title)
    return created


async def create_conversation(
    db: Database,
    *,
    user_id: str,
    mode: ConversationMode = ConversationMode.chat,
    title: str | None = None,
) -> int:
    name = clean_title(title) if title else DEFAULT_TITLE
    async with db.connection() as conn:
        return await insert_conversation(conn, user_id=user_id, mode=mode, title=name)


@retry_on_reconnect
async def mode_of(db: Database, *, user_id: str, conversation_id: int) -> ConversationMode:
    """The conversation's mode (fixed at creation); 404 if it is not the user's."""
    check_id(conversation_id)
    async with db.connection() as conn:
        mode = await conn.fetchval(
            "SELECT mode FROM conversations WHERE id = $1 AND user_id = $2",
            conversation_id,
            user_id,
        )
    if mode is None:
        raise not_found(conversation_id)
    return ConversationMode(mode)


async def check_owned(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    check_id(conversation_id)
    found = await conn.fetchval(
        "SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2", conversation_id, user_id
    )
    if found is None:
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


# Unread: messages from others (agents, the assistant, the system) after the person's stored
# read position. Counting stops at UNREAD_CAP: a badge says "999+", it never scans millions.
UNREAD_CAP = 999


def unread_sql(person: str) -> str:
    """The unread count of conversation `c`, owned by `person` (a statement's parameter:
    on a cluster, a subquery filtered by the very value the statement is routed by keeps it
    to that person's node)."""
    return f"""(SELECT count(*) FROM (
    SELECT 1 FROM messages u
    WHERE u.user_id = {person} AND u.conversation_id = c.id AND u.id > c.last_read_id
      AND u.role <> 'user'
    LIMIT {UNREAD_CAP}) unread_rows)"""


# Newest activity first: a finished turn (updated_at) or any later message, e.g. an agent's.
_SUMMARIES = f"""
SELECT {CONVERSATION_COLUMNS}, last.content AS preview, last.created_at AS last_message_at,
       {unread_sql("$1")} AS unread
FROM conversations c
LEFT JOIN LATERAL (
    SELECT m.content, m.created_at FROM messages m
    WHERE m.user_id = $1 AND m.conversation_id = ANY(ARRAY[c.id])
    ORDER BY m.conversation_id, m.id DESC LIMIT 1
) last ON true
WHERE c.user_id = $1 AND ($2::bigint[] IS NULL OR c.id = ANY($2::bigint[]))
ORDER BY greatest(c.updated_at, coalesce(last.created_at, c.updated_at)) DESC, c.id DESC
"""


async def summaries_of(
    db: Database, *, user_id: str, ids: list[int] | None = None
) -> list[ConversationSummary]:
    """The user's conversations (only those in `ids` when given), newest activity first."""
    async with db.connection() as conn:
        rows = await conn.fetch(_SUMMARIES, user_id, ids)
    return [
        ConversationSummary(
            conversation=ConversationRecord(
                **{name: row[name] for name in ConversationRecord.model_fields}
            ),
            preview=_preview(row["preview"]),
            last_message_at=row["last_message_at"],
            unread=row["unread"],
        )
        for row in rows
    ]


def _preview(content: str | None) -> str | None:
    if content is None:
        return None
    flat = " ".join(content.split())
    return flat if len(flat) <= 120 else flat[:117] + "…"


@retry_on_reconnect
async def rename_conversation(
    db: Database, *, user_id: str, conversation_id: int, title: str
) -> None:
    cleaned = clean_title(title)
    check_id(conversation_id)
    async with db.connection() as conn:
        renamed = await conn.fetchval(
            "UPDATE conversations SET title = $3, updated_at = now()"
            " WHERE id = $1 AND user_id = $2 RETURNING id",
            conversation_id,
            user_id,
            cleaned,
        )
    if renamed is None:
        raise not_found(conversation_id)


async def delete_conversation(db: Database, *, user_id: str, conversation_id: int) -> None:
    """Its messages go with it (ON DELETE CASCADE)."""
    check_id(conversation_id)
    async with db.connection() as conn:
        deleted = await conn.fetchval(
            "DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id",
            conversation_id,
            user_id,
        )
    if deleted is None:
        raise not_found(conversation_id)


@retry_on_reconnect
async def list_messages(
    db: Database, *, user_id: str, conversation_id: int, after: int | None = None, limit: int = 50
) -> list[StoredMessage]:
    async with db.connection() as conn:
        await check_owned(conn, user_id=user_id, conversation_id=conversation_id)
        if after is None:
            return await last_messages(
                conn, user_id=user_id, conversation_id=conversation_id, limit=limit
            )
        return await messages_after(
            conn, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
        )


@retry_on_reconnect
async def turn_claimed(db: Database, *, user_id: str, conversation_id: int) -> bool:
    """Whether a turn holds the conversation now; 404 if it is not the user's."""
    check_id(conversation_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "SELECT turn_id IS NOT NULL AND turn_expires_at > now() AS claimed"
            " FROM conversations WHERE id = $1 AND user_id = $2",
            conversation_id,
            user_id,
        )
    if row is None:
        raise not_found(conversation_id)
    return bool(row["claimed"])


@retry_on_reconnect
async def latest_message_id(db: Database, *, user_id: str, conversation_id: int) -> int:
    """The newest message id (0 if none); 404 if the conversation is not the user's."""
    async with db.connection() as conn:
        await check_owned(conn, user_id=user_id, conversation_id=conversation_id)
        latest = await conn.fetchval(
            "SELECT max(id) FROM messages WHERE user_id = $2 AND conversation_id = $1",
            conversation_id,
            user_id,
        )
    return int(latest or 0)


# `conversation_id = ANY([id])` rather than `= id`: with a plain equality PostgreSQL may walk
# the primary key backwards and filter, which gets slower with every message written since
# (in any conversation); this form can only be served, in order, by the
# (conversation_id, id DESC) index, so reading the last 50 costs the same at any size.
_LAST = f"""SELECT {MESSAGE_COLUMNS} FROM messages
WHERE user_id = $3 AND conversation_id = ANY($1::bigint[])
ORDER BY conversation_id, id DESC LIMIT $2"""
# The index backwards: (conversation_id DESC, id ASC), i.e. ascending ids.
_AFTER = f"""SELECT {MESSAGE_COLUMNS} FROM messages
WHERE user_id = $4 AND conversation_id = ANY($1::bigint[]) AND id > $2
ORDER BY conversation_id DESC, id LIMIT $3"""


async def messages_after(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, after: int, limit: int
) -> list[StoredMessage]:
    rows = await conn.fetch(_AFTER, [conversation_id], after, limit, user_id)
    return [StoredMessage(**row) for row in rows]


async def last_messages(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, limit: int
) -> list[StoredMessage]:
    """The newest `limit` messages, oldest first; walks (conversation_id, id DESC) only."""
    rows = await conn.fetch(_LAST, [conversation_id], limit, user_id)
    return [StoredMessage(**row) for row in reversed(rows)]


# The one way a message is stored (migration 0004); the turn's functions use it too.
_APPEND = (
    f"SELECT {MESSAGE_COLUMNS} FROM parley_append_message($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
)


async def append_message(
    conn: asyncpg.Connection,
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
) -> StoredMessage:
    """Insert a message inside the caller's transaction; every instance's reader finds it
    once the transaction commits (`realtime.reader`; a rolled-back message is never seen).
    `parley_append_message` takes the conversation's lock first, so ids commit in order
    within a conversation and a reader resuming "after id N" can never skip a message that
    committed late.
    """
    row = await conn.fetchrow(
        _APPEND,
        conversation_id,
        user_id,
        role.value,
        author,
        kind.value,
        content,
        tool_calls,
        error,
        reply_to,
        meta,
    )
    assert row is not None
    return StoredMessage(**row)


async def title_untitled(
    db: Database, *, user_id: str, conversation_id: int, first_message_id: int, text: str
) -> None:
    """A conversation created empty (from the UI's New button, or a work session) is named
    after the person's first message, like one created by that message."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE conversations SET title = $3 WHERE id = $1 AND user_id = $2 AND title = $4"
            " AND NOT EXISTS (SELECT 1 FROM messages WHERE user_id = $2 AND conversation_id = $1"
            " AND role = 'user' AND id < $5)",
            conversation_id,
            user_id,
            title_from(text),
            DEFAULT_TITLE,
            first_message_id,
        )
