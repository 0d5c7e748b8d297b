"""Branches in place: a chat's edited messages and regenerated replies are siblings in the
same conversation, and one path through them is shown (specs/chat.md, *Branches*).

A turn starts a branch (`chat.store.start` with `branch_from`); this module reads where the
shown branch forks and switches it. The switch is kept on the rows (`messages.shown`), so a
reload, another tab, the next turn's history and an agent's tools all read the same branch.
"""

from __future__ import annotations

import asyncpg

from parley.chat.store import refusal
from parley.conversations import check_id, check_owned
from parley.db import Database, retry_on_reconnect
from parley.messages import store as messages


@retry_on_reconnect
async def forks(db: Database, *, user_id: str, conversation_id: int) -> list[tuple[int, list[int]]]:
    """Each shown message with siblings, and all of them; 404 if the conversation is not the
    person's."""
    async with db.connection() as conn:
        await check_owned(conn, user_id=user_id, conversation_id=conversation_id)
        return await messages.branches(conn, user_id=user_id, conversation_id=conversation_id)


async def show(db: Database, *, user_id: str, conversation_id: int, message_id: int) -> int:
    """Show the branch `message_id` is on; the conversation's version after. Refused (and
    nothing moves) while a turn runs there (409), for a message not of this conversation
    (422), or one whose parent another switch has just hidden (409 branch_moved)."""
    check_id(conversation_id)
    async with db.connection() as conn:
        try:
            return await messages.show_branch(
                conn, user_id=user_id, conversation_id=conversation_id, message_id=message_id
            )
        except asyncpg.PostgresError as exc:
            raise refusal(exc, conversation_id) from exc
