"""The turn claim: compare-and-set on the conversation row, with an expiry.

A conversation has at most one turn in flight. Claiming sets `turn_id` if no live claim
exists; completing bumps `version` and clears it in the same statement. A claim that
outlives `turn_timeout` (its server crashed) is free to take, so nothing stays locked.
"""

from __future__ import annotations

import uuid

import asyncpg

from parley.conversations import check_id, not_found
from parley.errors import TurnInProgress
from parley.models import ConversationMode


def new_turn_id() -> str:
    return uuid.uuid4().hex


_CREATE_CLAIMED = """INSERT INTO conversations (user_id, mode, title, turn_id, turn_expires_at)
VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING id"""

# A claim is not activity: updated_at stays, the conversation list orders by finished turns.
_CLAIM = """UPDATE conversations
SET turn_id = $3, turn_expires_at = now() + make_interval(secs => $4)
WHERE id = $1 AND user_id = $2 AND (turn_id IS NULL OR turn_expires_at < now())
RETURNING id"""

_COMPLETE = """UPDATE conversations
SET version = version + 1, turn_id = NULL, turn_expires_at = NULL, updated_at = now()
WHERE id = $1 AND turn_id = $2
RETURNING version"""


async def create_claimed(
    conn: asyncpg.Connection, *, user_id: str, title: str, turn_id: str, ttl_seconds: float
) -> int:
    """A new chat conversation, born with this turn's claim on it."""
    created: int = await conn.fetchval(
        _CREATE_CLAIMED, user_id, ConversationMode.chat.value, title, turn_id, ttl_seconds
    )
    return created


async def claim_turn(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, ttl_seconds: float
) -> str:
    """Claim inside the caller's transaction. A concurrent claimer blocks on the row lock
    until this transaction ends, then finds the claim taken: exactly one wins."""
    check_id(conversation_id)
    turn_id = new_turn_id()
    claimed = await conn.fetchval(_CLAIM, conversation_id, user_id, turn_id, ttl_seconds)
    if claimed is None:
        exists = await conn.fetchval(
            "SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2", conversation_id, user_id
        )
        if exists is None:
            raise not_found(conversation_id)
        raise TurnInProgress(
            "A reply is already being written in this conversation; try again when it is done",
            conversation_id=conversation_id,
        )
    return turn_id


async def complete_turn(
    conn: asyncpg.Connection, *, conversation_id: int, turn_id: str
) -> int | None:
    """Finish the turn inside the caller's transaction; None if the claim was lost."""
    version: int | None = await conn.fetchval(_COMPLETE, conversation_id, turn_id)
    return version
