"""The turn's statements: claim-and-store at the start, store-and-release at the end, and
between them the claim's renewals and the sweep of lapsed claims (`lease`).

A conversation has at most one turn in flight. Starting a turn sets `turn_id` if no live
claim exists; finishing bumps `version` and clears it. A claim that outlives
`turn_timeout` (its server crashed) is free to take, so nothing stays locked. Both are
PL/pgSQL functions (parley/sql/start_turn.sql, finish_turn.sql), called through the messages
store (they write messages): one round trip each, atomic without a transaction block around it.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from parley.conversations import check_id, not_found
from parley.errors import BranchMoved, InvalidInput, NothingToRetry, TurnInProgress
from parley.messages import store as messages
from parley.messages.store import StoredMessage
from parley.models import ConversationMode, MessageKind, Role

# The SQLSTATEs the functions raise.
NO_SUCH_CONVERSATION = "PT404"
CLAIMED = "PT409"
NOT_FAILED = "PT422"
NOT_REPLACEABLE = "PT423"
BRANCH_MOVED = "PT412"


def new_turn_id() -> str:
    return uuid.uuid4().hex


async def start(
    conn: asyncpg.Connection,
    *,
    turn_id: str,
    user_id: str,
    conversation_id: int | None,
    title: str,
    ttl_seconds: float,
    content: str | None,
    history_limit: int,
    mode: ConversationMode = ConversationMode.chat,
    role: Role = Role.user,
    branch_from: int | None = None,
) -> list[StoredMessage]:
    """Claim the conversation for `turn_id` (a new one of `mode`, titled `title`, when
    `conversation_id` is None) and store the person's message as `role`. `content` None
    retries the last turn, which must have failed (NothingToRetry otherwise). Returns the last
    `history_limit` messages, oldest first. A concurrent starter waits on the row lock until
    this one's statement commits, then finds the claim taken. Safe to repeat with the same
    `turn_id`: a start that already committed is not stored again. `branch_from` (a shown
    message) starts a new branch in its place: `content` is its edit (a message of `role`),
    or None to answer its question again (a reply: regenerate); the history is the new
    branch's."""
    if conversation_id is not None:
        check_id(conversation_id)
    try:
        return await messages.start_turn(
            conn,
            user_id,
            conversation_id,
            mode.value,
            title,
            turn_id,
            ttl_seconds,
            role.value,
            content,
            history_limit,
            branch_from,
        )
    except asyncpg.PostgresError as exc:
        raise refusal(exc, conversation_id or 0) from exc


async def finish(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    turn_id: str,
    content: str,
    tool_calls: list[dict[str, Any]] | None,
    error: bool,
    meta: dict[str, Any] | None = None,
    role: Role = Role.assistant,
    author: str = "assistant",
    kind: MessageKind = MessageKind.message,
) -> StoredMessage:
    """Store the reply and release the claim, both or neither. If the claim expired and
    another turn took the conversation, nothing is stored: TurnInProgress."""
    try:
        return await messages.finish_turn(
            conn,
            user_id,
            conversation_id,
            turn_id,
            role.value,
            author,
            kind.value,
            content,
            tool_calls,
            error,
            meta,
        )
    except asyncpg.PostgresError as exc:
        if getattr(exc, "sqlstate", None) == CLAIMED:
            raise TurnInProgress(
                "This reply took too long and another turn has started",
                conversation_id=conversation_id,
            ) from exc
        raise


def refusal(exc: asyncpg.PostgresError, conversation_id: int) -> Exception:
    """The database function's refusal (its SQLSTATE) as the error the caller sees."""
    state = getattr(exc, "sqlstate", None)
    if state == NO_SUCH_CONVERSATION:
        return not_found(conversation_id)
    if state == CLAIMED:
        return TurnInProgress(
            "A reply is already being written in this conversation; try again when it is done",
            conversation_id=conversation_id,
        )
    if state == NOT_REPLACEABLE:
        return InvalidInput(
            "message_id must name a message of this conversation: one you wrote to edit it,"
            " a reply to regenerate it",
            details=[{"field": "message_id"}],
        )
    if state == BRANCH_MOVED:
        return BranchMoved(
            "That message is no longer on the branch this conversation shows; reload it",
            conversation_id=conversation_id,
        )
    if state == NOT_FAILED:
        return NothingToRetry(
            "The last turn in this conversation did not fail: there is nothing to retry",
            conversation_id=conversation_id,
        )
    return exc


# -- the claim while the turn runs (`parley.chat.lease`) ---------------------------------

_RENEW = """
UPDATE conversations SET turn_expires_at = now() + make_interval(secs => $3)
WHERE user_id = $4 AND id = $1 AND turn_id = $2 AND turn_expires_at > now()
"""
# Found across every person (on a cluster, one read of each node's partial index of claims),
# then each released by itself, only if it is still lapsed: so a release is one node's write,
# and a sweep that finds nothing writes nothing anywhere.
_LAPSED = """
SELECT user_id, id FROM conversations WHERE turn_id IS NOT NULL AND turn_expires_at < now()
"""
_RELEASE = """
UPDATE conversations SET turn_id = NULL, turn_expires_at = NULL
WHERE user_id = $1 AND id = $2 AND turn_id IS NOT NULL AND turn_expires_at < now()
"""


async def renew(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, turn_id: str, seconds: float
) -> bool:
    """Extend the turn's live claim by `seconds`; False if it lapsed or another turn has it."""
    status = await conn.execute(_RENEW, conversation_id, turn_id, seconds, user_id)
    return bool(status.endswith(" 1"))


async def lapsed(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Everyone's lapsed claims: `user_id`, `id` (the conversation)."""
    return await conn.fetch(_LAPSED)


async def release(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> int:
    """Release the claim if it is still lapsed (the trigger answers its dead turn): 1 or 0."""
    status = await conn.execute(_RELEASE, user_id, conversation_id)
    return int(status.split()[-1])
