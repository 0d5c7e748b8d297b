"""The SQL of attachments. Every statement names the owner: on a cluster, one node's rows,
and never another person's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import asyncpg

_INFO = "id, name, kind, content_type, size, conversation_id, message_id, turn_id, created_at"


@dataclass(frozen=True, slots=True)
class AttachmentInfo:
    id: int
    name: str
    kind: str
    content_type: str
    size: int
    conversation_id: int | None
    message_id: int | None
    turn_id: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class AttachmentData:
    id: int
    name: str
    kind: str
    content_type: str
    data: bytes


async def insert(
    conn: asyncpg.Connection, *, user_id: str, name: str, kind: str, content_type: str, data: bytes
) -> AttachmentInfo:
    row = await conn.fetchrow(
        f"INSERT INTO attachments (user_id, name, kind, content_type, size, data)"
        f" VALUES ($1, $2, $3, $4, $5, $6) RETURNING {_INFO}",
        user_id,
        name,
        kind,
        content_type,
        len(data),
        data,
    )
    assert row is not None
    return AttachmentInfo(**row)


async def info(
    conn: asyncpg.Connection, *, user_id: str, attachment_id: int
) -> AttachmentInfo | None:
    row = await conn.fetchrow(
        f"SELECT {_INFO} FROM attachments WHERE user_id = $1 AND id = $2", user_id, attachment_id
    )
    return AttachmentInfo(**row) if row else None


async def read(
    conn: asyncpg.Connection, *, user_id: str, ids: Sequence[int]
) -> list[AttachmentData]:
    rows = await conn.fetch(
        "SELECT id, name, kind, content_type, data FROM attachments"
        " WHERE user_id = $1 AND id = ANY($2::bigint[])",
        user_id,
        list(ids),
    )
    return [AttachmentData(**row) for row in rows]


async def lock(
    conn: asyncpg.Connection, *, user_id: str, ids: Sequence[int]
) -> list[AttachmentInfo]:
    """The person's attachments among `ids`, locked until the transaction ends (two sends of
    one attachment at once: the second waits, then finds it sent)."""
    rows = await conn.fetch(
        f"SELECT {_INFO} FROM attachments WHERE user_id = $1 AND id = ANY($2::bigint[])"
        " ORDER BY id FOR UPDATE",
        user_id,
        list(ids),
    )
    return [AttachmentInfo(**row) for row in rows]


async def bind(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    ids: Sequence[int],
    conversation_id: int,
    message_id: int,
    turn_id: str,
) -> None:
    await conn.execute(
        "UPDATE attachments SET conversation_id = $3, message_id = $4, turn_id = $5"
        " WHERE user_id = $1 AND id = ANY($2::bigint[])",
        user_id,
        list(ids),
        conversation_id,
        message_id,
        turn_id,
    )
