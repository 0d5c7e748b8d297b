"""Finding a conversation again: its title, or words of its messages. Scoped to one person.

Message text goes through PostgreSQL full-text search (`websearch_to_tsquery`: words, "quoted
phrases", -excluded), served by the (user_id, tsvector) GIN index of migration 0046; titles,
a few per person, are matched as substrings. The messages' statements are the messages
store's (`parley.messages.store.search`), the titles' the conversations store's.
"""

from __future__ import annotations

from parley.conversations import store as conversation_store
from parley.db import Database, retry_on_reconnect
from parley.messages import store as message_store
from parley.schemas import SearchOut
from parley.text import clean

QUERY_MAX = 200
LIMIT_MAX = 50


def clean_query(query: str) -> str:
    return clean(query, field="q", max_chars=QUERY_MAX, one_line=True)


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@retry_on_reconnect
async def search(db: Database, *, user_id: str, query: str, limit: int = 20) -> SearchOut:
    """The person's conversations whose title holds `query`, and their newest messages that
    have its words; at most `limit` of each."""
    text = clean_query(query)
    async with db.connection() as conn:
        titles = await conversation_store.titled_like(
            conn, user_id=user_id, escaped=_like_escaped(text), limit=limit
        )
        messages = await message_store.search(conn, user_id=user_id, text=text, limit=limit)
    # The wire shapes are the one definition of a hit: validated from the rows by name.
    return SearchOut.model_validate(
        {"conversations": [dict(r) for r in titles], "messages": [dict(r) for r in messages]}
    )
