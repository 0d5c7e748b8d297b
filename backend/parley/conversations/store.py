"""The one store of `conversations`: every statement on the table outside the SQL functions
(parley/sql/) is here, whichever package needs it (the conversation list, the inbox, read
positions, a fork's title, a sweep's lock). Each function runs on the caller's connection,
inside its transaction when it holds one, so the caller decides what is atomic.

A chat turn's claim (`turn_id`, `turn_expires_at`) is written by the turn's own store
(`parley.chat.store`); messages' counts and previews come from `parley.messages.store`'s
fragments. Every statement names the owner's user id: on a Citus cluster that is what sends
it to the one node holding the person's rows (specs/scale.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from parley.messages import store as messages
from parley.models import Conversation, ConversationMode, columns, from_row
from parley.schemas import ConversationShown


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


def _preview(content: str | None) -> str | None:
    if content is None:
        return None
    flat = " ".join(content.split())
    return flat if len(flat) <= 120 else flat[:117] + "…"


# The one insert into `conversations` (`parley_start_turn` makes a chat's in SQL). The
# conflict clause names the partial unique index of inboxes, so it only ever applies to an
# inbox: a second one created at the same moment returns the first.
_INSERT = """
INSERT INTO conversations (user_id, mode, title) VALUES ($1, $2, $3)
ON CONFLICT (user_id) WHERE mode = 'inbox' DO UPDATE SET mode = 'inbox'
RETURNING id
"""


async def insert(
    conn: asyncpg.Connection, *, user_id: str, mode: ConversationMode, title: str
) -> int:
    """A new conversation (the person's inbox if it exists already); `title` is clean."""
    created: int = await conn.fetchval(_INSERT, user_id, mode.value, title)
    return created


# -- reads ------------------------------------------------------------------------------


async def mode(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> str | None:
    """The conversation's mode, None if it is not the person's."""
    found: str | None = await conn.fetchval(
        "SELECT mode FROM conversations WHERE id = $1 AND user_id = $2",
        conversation_id,
        user_id,
    )
    return found


async def exists(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> bool:
    found = await conn.fetchval(
        "SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2", conversation_id, user_id
    )
    return found is not None


async def title(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> str | None:
    found: str | None = await conn.fetchval(
        "SELECT title FROM conversations WHERE id = $1 AND user_id = $2", conversation_id, user_id
    )
    return found


async def inbox_id(conn: asyncpg.Connection, *, user_id: str) -> int | None:
    """The person's inbox, if it was made (at most one: a unique index)."""
    found: int | None = await conn.fetchval(
        "SELECT id FROM conversations WHERE user_id = $1 AND mode = 'inbox'", user_id
    )
    return found


async def claimed(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> bool | None:
    """Whether a turn holds the conversation now; None if it is not the person's."""
    row = await conn.fetchrow(
        "SELECT turn_id IS NOT NULL AND turn_expires_at > now() AS claimed"
        " FROM conversations WHERE id = $1 AND user_id = $2",
        conversation_id,
        user_id,
    )
    return None if row is None else bool(row["claimed"])


# Newest activity first: a finished turn (updated_at) or any later message, e.g. an agent's.
_SUMMARIES = f"""
SELECT {CONVERSATION_COLUMNS}, last.content AS preview, last.created_at AS last_message_at,
       {messages.unread_sql("$1")} AS unread
FROM conversations c
{messages.last_of_conversation("$1", "last")}
WHERE c.user_id = $1 AND ($2::bigint[] IS NULL OR c.id = ANY($2::bigint[]))
ORDER BY greatest(c.updated_at, coalesce(last.created_at, c.updated_at)) DESC, c.id DESC
"""


async def summaries(
    conn: asyncpg.Connection, *, user_id: str, ids: list[int] | None
) -> list[ConversationSummary]:
    """The person's conversations (only those in `ids` when given), newest activity first,
    each with its last message's preview and its unread count."""
    rows = await conn.fetch(_SUMMARIES, user_id, ids)
    return [
        ConversationSummary(
            conversation=from_row(ConversationRecord, row),
            preview=_preview(row["preview"]),
            last_message_at=row["last_message_at"],
            unread=row["unread"],
        )
        for row in rows
    ]


_TITLES = """
SELECT id, title, mode::text AS mode FROM conversations
WHERE user_id = $1 AND title ILIKE '%' || $2 || '%' ESCAPE '\\'
ORDER BY updated_at DESC, id DESC LIMIT $3
"""


async def titled_like(
    conn: asyncpg.Connection, *, user_id: str, escaped: str, limit: int
) -> list[asyncpg.Record]:
    """The person's conversations whose title holds `escaped` (a LIKE pattern's text, its
    `\\`, `%` and `_` escaped), newest first: `id`, `title`, `mode`."""
    return await conn.fetch(_TITLES, user_id, escaped, limit)


# -- locks ------------------------------------------------------------------------------


async def lock(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> bool:
    """Lock the conversation's row for the caller's transaction; False if not the person's."""
    found = await conn.fetchval(
        "SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2 FOR UPDATE",
        conversation_id,
        user_id,
    )
    return found is not None


async def try_lock(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> bool:
    """Lock the conversation's row unless another transaction holds it (SKIP LOCKED): a sweep
    that finds it held leaves it to whoever holds it."""
    found = await conn.fetchval(
        "SELECT 1 FROM conversations WHERE user_id = $2 AND id = $1 FOR UPDATE SKIP LOCKED",
        conversation_id,
        user_id,
    )
    return found is not None


# -- writes -----------------------------------------------------------------------------


async def rename(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, title: str
) -> bool:
    """False if the conversation is not the person's."""
    renamed = await conn.fetchval(
        "UPDATE conversations SET title = $3, updated_at = now()"
        " WHERE id = $1 AND user_id = $2 RETURNING id",
        conversation_id,
        user_id,
        title,
    )
    return renamed is not None


# Which timestamp each flag sets (names are ours, never from input).
_FLAGS = {"archived": "archived_at", "pinned": "pinned_at"}


async def set_flag(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, flag: str, on: bool
) -> bool:
    """Archive/restore or pin/unpin; setting a flag that is set keeps its first time. False
    if the conversation is not the person's."""
    column = _FLAGS[flag]
    found = await conn.fetchval(
        f"UPDATE conversations SET {column} = CASE WHEN $3 THEN coalesce({column}, now())"
        " ELSE NULL END WHERE id = $1 AND user_id = $2 RETURNING id",
        conversation_id,
        user_id,
        on,
    )
    return found is not None


async def delete(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> bool:
    """Its messages go with it (ON DELETE CASCADE); False if it is not the person's."""
    deleted = await conn.fetchval(
        "DELETE FROM conversations WHERE id = $1 AND user_id = $2 RETURNING id",
        conversation_id,
        user_id,
    )
    return deleted is not None


async def title_untitled(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    title: str,
    untitled: str,
    first_message_id: int,
) -> None:
    """Name a conversation still titled `untitled` whose person wrote nothing before
    `first_message_id`."""
    await conn.execute(
        "UPDATE conversations SET title = $3 WHERE id = $1 AND user_id = $2 AND title = $4"
        f" AND NOT {messages.person_wrote_before('$2', '$1', '$5')}",
        conversation_id,
        user_id,
        title,
        untitled,
        first_message_id,
    )


async def set_read(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> None:
    """The read position is `message_id`, whatever it was (a fork starts read)."""
    await conn.execute(
        "UPDATE conversations SET last_read_id = $3 WHERE id = $1 AND user_id = $2",
        conversation_id,
        user_id,
        message_id,
    )


async def read_up_to(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> None:
    """Move the read position forward to `message_id` (never back)."""
    await conn.execute(
        "UPDATE conversations SET last_read_id = $2"
        " WHERE user_id = $3 AND id = $1 AND last_read_id < $2",
        conversation_id,
        message_id,
        user_id,
    )


async def read_up_to_counted(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, message_id: int
) -> int:
    """Move the read position forward to `message_id` (never back); the unread count after."""
    unread: int = await conn.fetchval(
        "UPDATE conversations c SET last_read_id = greatest(c.last_read_id, $2)"
        f" WHERE c.user_id = $3 AND c.id = $1 RETURNING {messages.unread_sql('$3')}",
        conversation_id,
        message_id,
        user_id,
    )
    return unread


# -- the chosen model (parley.assistant.catalog says which names are offered) -----------


async def set_model(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, model: str | None
) -> bool:
    """False if the conversation is not the person's. Not activity: the list's order stays."""
    changed = await conn.fetchval(
        "UPDATE conversations SET model = $3 WHERE id = $1 AND user_id = $2 RETURNING id",
        conversation_id,
        user_id,
        model,
    )
    return changed is not None


# Read at every chat turn (its hot path: tests/cluster/test_layout.py).
_CHOSEN_MODEL = "SELECT model FROM conversations WHERE id = $1 AND user_id = $2"


async def chosen_model(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int
) -> str | None:
    """The model the person chose for the conversation; None for the configured one."""
    found: str | None = await conn.fetchval(_CHOSEN_MODEL, conversation_id, user_id)
    return found
