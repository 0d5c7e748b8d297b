"""The model tokens each person's work sessions used, as the relay saw them.

The relay reads every Messages API response it passes on (a JSON body, or the event
stream) for its `usage`, and adds it to the person's row for that conversation. The rows are
kept when a conversation is deleted: what was spent stays spent.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from parley.db import Database
from parley.work import store_usage

log = logging.getLogger(__name__)

# An event-stream line longer than this is not a usage event (those are small): skipped.
MAX_LINE = 1 << 20
# A JSON body longer than this is passed on but not read for its usage.
MAX_JSON = 16 << 20


@dataclass
class Tokens:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def take(self, usage: Any) -> None:
        """Counts from a `usage` object; the API's counts are running totals, so the latest
        one of each wins."""
        if not isinstance(usage, dict):
            return
        for field in fields(self):
            value = usage.get(field.name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(self, field.name, value)

    @property
    def empty(self) -> bool:
        return not any(asdict(self).values())


class Meter:
    """Reads a response's usage as its bytes pass: `feed` each chunk, then `tokens`."""

    def __init__(self, *, streaming: bool) -> None:
        self.streaming = streaming
        self.found = Tokens()
        self._buffer = bytearray()
        self._skipping = False  # inside an over-long line (stream) or body (JSON)

    def feed(self, chunk: bytes) -> None:
        if not self.streaming:
            if not self._skipping:
                self._buffer += chunk
                if len(self._buffer) > MAX_JSON:
                    self._skipping = True
                    self._buffer.clear()
            return
        self._buffer += chunk
        while (end := self._buffer.find(b"\n")) != -1:
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._skipping:
                self._skipping = False
            else:
                self._line(line)
        if len(self._buffer) > MAX_LINE:
            self._buffer.clear()
            self._skipping = True

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:"):
            return
        try:
            event = json.loads(line[5:])
        except ValueError:
            return
        if not isinstance(event, dict):
            return
        if event.get("type") == "message_start":
            message = event.get("message")
            self.found.take(message.get("usage") if isinstance(message, dict) else None)
        elif event.get("type") == "message_delta":
            self.found.take(event.get("usage"))

    def tokens(self) -> Tokens:
        if not self.streaming and not self._skipping and self._buffer:
            try:
                body = json.loads(bytes(self._buffer))
            except ValueError:
                body = None
            if isinstance(body, dict):
                self.found.take(body.get("usage"))
        elif self.streaming and self._buffer and not self._skipping:
            self._line(bytes(self._buffer).rstrip(b"\r"))
        self._buffer.clear()
        return self.found


async def add(db: Database, *, user_id: str, conversation_id: int, tokens: Tokens) -> None:
    """Add one response's tokens to the person's row for the conversation."""
    async with db.connection() as conn:
        await store_usage.add(
            conn,
            user_id=user_id,
            conversation_id=conversation_id,
            input_tokens=tokens.input_tokens,
            output_tokens=tokens.output_tokens,
            cache_creation_input_tokens=tokens.cache_creation_input_tokens,
            cache_read_input_tokens=tokens.cache_read_input_tokens,
        )


@dataclass
class ConversationUsage(Tokens):
    conversation_id: int = 0
    title: str | None = None  # None once the conversation is deleted
    requests: int = 0
    updated_at: datetime | None = None


async def of_person(db: Database, *, user_id: str) -> list[ConversationUsage]:
    """The person's usage per conversation, the most recent first."""
    async with db.connection() as conn:
        rows = await store_usage.of_person(conn, user_id=user_id)
    return [ConversationUsage(**dict(row)) for row in rows]
