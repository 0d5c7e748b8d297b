"""The turn claim: compare-and-set on the conversation row, with an expiry.

A conversation has at most one turn in flight. Claiming sets `turn_id` if no live claim
exists; completing bumps `version` and clears it in the same statement. A claim that
outlives `turn_timeout` (its server crashed) is free to take, so nothing stays locked.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from parley.errors import NotFound, TurnInProgress
from parley.models import Conversation

_conv = Conversation.__table__  # type: ignore[attr-defined]


def new_turn_id() -> str:
    return uuid.uuid4().hex


def claim_expiry(ttl_seconds: float) -> sa.ColumnElement[Any]:
    return sa.func.now() + timedelta(seconds=ttl_seconds)


async def claim_turn(
    session: AsyncSession, *, user_id: str, conversation_id: int, ttl_seconds: float
) -> str:
    """Claim inside the caller's transaction. A concurrent claimer blocks on the row lock
    until this transaction ends, then finds the claim taken: exactly one wins."""
    turn_id = new_turn_id()
    statement = (
        sa.update(_conv)
        .where(
            _conv.c.id == conversation_id,
            _conv.c.user_id == user_id,
            sa.or_(_conv.c.turn_id.is_(None), _conv.c.turn_expires_at < sa.func.now()),
        )
        .values(
            turn_id=turn_id,
            turn_expires_at=claim_expiry(ttl_seconds),
            # A claim is not activity: the conversation list orders by finished turns.
            updated_at=_conv.c.updated_at,
        )
        .returning(_conv.c.id)
    )
    claimed = (await session.execute(statement)).scalar_one_or_none()
    if claimed is None:
        exists = await session.scalar(
            sa.select(_conv.c.id).where(_conv.c.id == conversation_id, _conv.c.user_id == user_id)
        )
        if exists is None:
            raise NotFound(
                f"Conversation {conversation_id} not found", conversation_id=conversation_id
            )
        raise TurnInProgress(
            "A reply is already being written in this conversation; try again when it is done",
            conversation_id=conversation_id,
        )
    return turn_id


async def complete_turn(session: AsyncSession, *, conversation_id: int, turn_id: str) -> int | None:
    """Finish the turn inside the caller's transaction; None if the claim was lost."""
    statement = (
        sa.update(_conv)
        .where(_conv.c.id == conversation_id, _conv.c.turn_id == turn_id)
        .values(
            version=_conv.c.version + 1,
            turn_id=None,
            turn_expires_at=None,
            updated_at=sa.func.now(),
        )
        .returning(_conv.c.version)
    )
    version: int | None = (await session.execute(statement)).scalar_one_or_none()
    return version
