"""A conversation as a file the person keeps: Markdown to read, JSON to process.

Only the person's own conversation (404 otherwise, as everywhere); every message, oldest
first, read in pages so a long conversation never loads in one query.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from parley.conversations import get_conversation, list_messages
from parley.db import Database
from parley.errors import InvalidInput
from parley.schemas import conversation_out, message_json

FORMATS = {"markdown": ("md", "text/markdown; charset=utf-8"), "json": ("json", "application/json")}
_PAGE = 500
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class Exported:
    filename: str
    media_type: str
    body: str


async def export_conversation(
    db: Database, *, user_id: str, conversation_id: int, fmt: str
) -> Exported:
    if fmt not in FORMATS:
        raise InvalidInput("format must be 'markdown' or 'json'", details=[{"field": "format"}])
    summary = await get_conversation(db, user_id=user_id, conversation_id=conversation_id)
    found: list[dict[str, Any]] = []
    after = 0
    while True:
        page = await list_messages(
            db, user_id=user_id, conversation_id=conversation_id, after=after, limit=_PAGE
        )
        found += [message_json(m) for m in page]
        if len(page) < _PAGE:
            break
        after = page[-1].id
    conversation = conversation_out(summary).model_dump(
        mode="json", include={"id", "title", "mode", "created_at", "updated_at"}
    )
    extension, media_type = FORMATS[fmt]
    stem = _UNSAFE.sub("-", conversation["title"]).strip("-")[:60] or "conversation"
    filename = f"parley-{conversation_id}-{stem}.{extension}"
    if fmt == "json":
        body = json.dumps({"conversation": conversation, "messages": found}, indent=2)
    else:
        body = _markdown(conversation, found)
    return Exported(filename, media_type, body)


def _who(message: dict[str, Any]) -> str:
    if message["role"] == "user":
        return "You"
    if message["role"] == "agent":
        return message.get("author") or "Agent"
    author = message.get("author")
    return author if author and author != "assistant" else "Assistant"


def _markdown(conversation: dict[str, Any], found: list[dict[str, Any]]) -> str:
    lines = [
        f"# {conversation['title']}",
        "",
        f"*{conversation['mode']} conversation, started {conversation['created_at']}*",
        "",
    ]
    for message in found:
        kind = message.get("kind") or "message"
        tag = "" if kind == "message" else f" ({kind})"
        error = " (error)" if message.get("error") else ""
        lines += [f"## {_who(message)}{tag}{error} · {message['created_at']}", ""]
        lines += [message["content"].rstrip(), ""]
    return "\n".join(lines).rstrip() + "\n"
