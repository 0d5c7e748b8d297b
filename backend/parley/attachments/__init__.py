"""Attachments: text, code and image files a person attaches to a chat message
(specs/attachments.md). Uploaded first, checked by their bytes and capped at
PARLEY_MAX_ATTACHMENT_BYTES; sent with at most one message, in the same transaction that
stores it, and then given to the model with that message on every turn after (the API is
stateless: they are read back from PostgreSQL with the history)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg

from parley.attachments import store
from parley.attachments.files import Sniffed, safe_name, sniff
from parley.attachments.store import AttachmentData, AttachmentInfo
from parley.db import Database
from parley.errors import InvalidInput, NotFound, ParleyError, TooLarge
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.text import unstorable

__all__ = ["MAX_PER_MESSAGE", "AttachmentData", "AttachmentInfo"]

MAX_PER_MESSAGE = 10


def too_large(limit: int) -> TooLarge:
    return TooLarge(
        f"The file is larger than the {human_size(limit)} limit for attachments",
        code="attachment_too_large",
        limit=limit,
    )


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB".replace(".0 MB", " MB")


async def upload(
    db: Database,
    *,
    user_id: str,
    name: str | None,
    claimed_type: str | None,
    data: bytes,
    max_bytes: int,
) -> AttachmentInfo:
    """Keep a file for the person's next message; refused (nothing kept) when empty, over
    `max_bytes`, or of a kind that cannot be attached."""
    if len(data) > max_bytes:
        raise too_large(max_bytes)
    if name is not None and (reason := unstorable(name)):
        # Refused, not cleaned: a name with a NUL is a malformed request, as anywhere else.
        raise InvalidInput(f"The file name {reason}", details=[{"field": "name"}])
    kept = safe_name(name)
    if not data:
        raise InvalidInput(f"{kept} is empty", code="empty_attachment")
    found: Sniffed = sniff(data, name=kept, claimed_type=claimed_type)
    async with db.connection() as conn:
        return await store.insert(
            conn,
            user_id=user_id,
            name=kept,
            kind=found.kind,
            content_type=found.content_type,
            data=data,
        )


def not_found(attachment_id: int, *, sending: bool = False) -> NotFound:
    """The same for another person's attachment as for none: ids say nothing about others.
    Reading one is the API's plain `not_found`; sending one names the attachment in its code,
    so a client never takes it for the conversation being gone."""
    return NotFound(
        f"Attachment {attachment_id} not found",
        code="attachment_not_found" if sending else None,
        attachment_id=attachment_id,
    )


async def download(db: Database, *, user_id: str, attachment_id: int) -> AttachmentData:
    if not 0 < attachment_id < 2**63:  # no such row, whatever the number
        raise not_found(attachment_id)
    async with db.connection() as conn:
        found = await store.read(conn, user_id=user_id, ids=[attachment_id])
    if not found:
        raise not_found(attachment_id)
    return found[0]


def wanted(ids: Sequence[int]) -> list[int]:
    """The ids a message names, each once, in order; at most MAX_PER_MESSAGE."""
    unique = list(dict.fromkeys(ids))
    if len(unique) > MAX_PER_MESSAGE:
        raise InvalidInput(
            f"A message takes at most {MAX_PER_MESSAGE} attachments",
            code="too_many_attachments",
        )
    return unique


async def claim(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    ids: Sequence[int],
    turn_id: str,
    images: bool,
    model_name: str,
) -> list[AttachmentInfo]:
    """Lock the attachments a message is about to be sent with (inside its transaction),
    refusing any that is not the person's, was sent already (by another turn), or is an
    image the model cannot take."""
    locked = {a.id: a for a in await store.lock(conn, user_id=user_id, ids=ids)}
    for attachment_id in ids:
        if attachment_id not in locked:
            raise not_found(attachment_id, sending=True)
    found = [locked[i] for i in ids]
    for attachment in found:
        if attachment.message_id is not None and attachment.turn_id != turn_id:
            raise ParleyError(
                f"{attachment.name} was already sent with another message; attach the file"
                " again to send it here",
                code="attachment_already_sent",
                status=409,
                attachment_id=attachment.id,
            )
    refused = [a.name for a in found if a.kind == "image"]
    if refused and not images:
        raise InvalidInput(
            f"The model answering here ({model_name}) does not take images: remove"
            f" {', '.join(refused)} to send this message",
            code="model_takes_no_images",
        )
    return found


def meta_of(found: Sequence[AttachmentInfo]) -> list[dict[str, Any]]:
    """What a message keeps of its attachments (`meta.attachments`): enough to show them."""
    return [
        {"id": a.id, "name": a.name, "kind": a.kind, "content_type": a.content_type, "size": a.size}
        for a in found
    ]


async def attach(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    found: Sequence[AttachmentInfo],
    message: StoredMessage,
    turn_id: str,
) -> StoredMessage:
    """Bind the claimed attachments to the stored message; the message as it now reads."""
    listed = meta_of(found)
    await store.bind(
        conn,
        user_id=user_id,
        ids=[a.id for a in found],
        conversation_id=message.conversation_id,
        message_id=message.id,
        turn_id=turn_id,
    )
    await messages.note_attachments(
        conn, user_id=user_id, message_id=message.id, attachments=listed
    )
    return message.model_copy(update={"meta": {**(message.meta or {}), "attachments": listed}})


def listed_ids(history: Sequence[StoredMessage]) -> list[int]:
    ids: list[int] = []
    for message in history:
        for entry in (message.meta or {}).get("attachments") or ():
            if isinstance(entry, dict) and isinstance(entry.get("id"), int):
                ids.append(entry["id"])
    return ids


async def for_history(
    db: Database, *, user_id: str, history: Sequence[StoredMessage]
) -> dict[int, AttachmentData]:
    """The files the history's messages carry, by id, for the model's input."""
    ids = listed_ids(history)
    if not ids:
        return {}
    async with db.connection() as conn:
        return {a.id: a for a in await store.read(conn, user_id=user_id, ids=ids)}
