"""Finding a conversation again: its title, or words of its messages. Scoped to one person.

One row per conversation, the best match first. Message text goes through PostgreSQL
full-text search, each word typed matched as the start of a word ("plumb" finds "plumber";
`search_text` reads the text), served by the (user_id, tsvector) GIN index of migration 0046.
When no message has the words, the words are loosened to words *like* them (pg_trgm's `<%`,
the trigram index of migration 0066): "plumbre" finds "plumber". Titles, a few per person,
are matched as substrings. Each row carries its conversation's best-matching message, a
snippet of it and where the words are in the snippet and the title (`marks`), for the UI to
highlight as text. The statements are the messages store's and the conversations store's.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley import search_text
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


def _marks(ranges: list[tuple[int, int]]) -> list[dict[str, int]]:
    return [{"start": s, "end": e} for s, e in ranges]


def _message(row: asyncpg.Record, words: list[str], similar: bool) -> dict[str, Any]:
    text, ranges = search_text.snippet(row["content"], words, similar=similar)
    return {
        "id": row["id"],
        "role": row["role"],
        "author": row["author"],
        "created_at": row["created_at"],
        "snippet": text,
        "marks": _marks(ranges),
    }


@retry_on_reconnect
async def search(db: Database, *, user_id: str, query: str, limit: int = 20) -> SearchOut:
    """The person's conversations whose messages have the words of `query` (or, when none
    has, words like them) or whose title holds it, best first, at most `limit`."""
    text = clean_query(query)
    parsed = search_text.parse(text)
    words = parsed.words
    tsquery = parsed.tsquery()
    similar = False
    async with db.connection() as conn:
        titles = await conversation_store.titled_like(
            conn, user_id=user_id, escaped=_like_escaped(text), limit=limit
        )
        found: list[asyncpg.Record] = []
        if tsquery:
            any_word = " | ".join(f"'{w}'" for w in words)
            found = await message_store.search(
                conn, user_id=user_id, tsquery=tsquery, any_word=any_word, limit=limit
            )
            if not found:
                similar = True
                found = await message_store.search_similar(
                    conn,
                    user_id=user_id,
                    words=parsed.similar_words(),
                    excluded=parsed.excluded_tsquery(),
                    limit=limit,
                )
    rows: dict[int, dict[str, Any]] = {}
    for row in found:
        rows[row["conversation_id"]] = {
            "id": row["conversation_id"],
            "title": row["title"],
            "mode": row["mode"],
            "message": _message(row, words, similar),
            "similar": similar,
            "in_title": False,
        }
    for title in titles:  # a title's match ranks a conversation first, with its message
        row = rows.setdefault(
            title["id"],
            {**dict(title), "message": None, "similar": False},
        )
        row["in_title"] = True
    ordered = sorted(rows.values(), key=lambda r: not r["in_title"])[:limit]
    for row in ordered:
        del row["in_title"]
        row["title_marks"] = _marks(
            search_text.merged(
                search_text.marks(row["title"], words, similar=row["similar"])
                + search_text.substring_marks(row["title"], text)
            )
        )
    # The wire shapes are the one definition of a hit: validated from the rows by name.
    return SearchOut.model_validate({"conversations": ordered})
