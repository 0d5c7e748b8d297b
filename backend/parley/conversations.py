"""Conversations, and the reads of their messages a person is allowed (the statements on
`messages` are `parley.messages.store`'s). Every query is scoped to the caller's user id, and
names it: on a Citus cluster that is what sends each to the one node holding the person's
rows (specs/scale.md)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import (
    CONVERSATION_TITLE_MAX,
    MAX_BIGINT,
    Conversation,
    ConversationMode,
    columns,
)
from parley.schemas import ConversationShown
from parley.text import clean

MAX_ID = MAX_BIGINT  # conversations.id is a PostgreSQL bigint
DEFAULT_TITLE = "New conversation"


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


# Newest activity first: a finished turn (updated_at) or any later message, e.g. an agent's.
_SUMMARIES = f"""
SELECT {CONVERSATION_COLUMNS}, last.content AS preview, last.created_at AS last_message_at,
       {messages.unread_sql("$1")} AS unread
FROM conversations c
{messages.last_of_conversation("$1", "last")}
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
        return await messages.latest_id(conn, user_id=user_id, conversation_id=conversation_id)


async def title_untitled(
    db: Database, *, user_id: str, conversation_id: int, first_message_id: int, text: str
) -> None:
    """A conversation created empty (from the UI's New button, or a work session) is named
    after the person's first message, like one created by that message."""
    async with db.connection() as conn:
        await conn.execute(
            "UPDATE conversations SET title = $3 WHERE id = $1 AND user_id = $2 AND title = $4"
            f" AND NOT {messages.person_wrote_before('$2', '$1', '$5')}",
            conversation_id,
            user_id,
            title_from(text),
            DEFAULT_TITLE,
            first_message_id,
        )
