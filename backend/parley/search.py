"""Finding a conversation again: its title, or words of its messages. Scoped to one person.

Message text goes through PostgreSQL full-text search (`websearch_to_tsquery`: words, "quoted
phrases", -excluded), served by the (user_id, tsvector) GIN index of migration 0046; titles,
a few per person, are matched as substrings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from parley.db import Database, retry_on_reconnect
from parley.text import clean

QUERY_MAX = 200
LIMIT_MAX = 50

_TITLES = """
SELECT id, title, mode::text AS mode FROM conversations
WHERE user_id = $1 AND title ILIKE '%' || $2 || '%' ESCAPE '\\'
ORDER BY updated_at DESC, id DESC LIMIT $3
"""
# The expression must be the index's own for the index to serve it. `id + 0`: ordered by the
# bare id, the planner may walk the whole primary key backwards hoping to meet 20 matches
# soon, which for a rare word means reading most of the table; this way it always takes the
# person's matches from the GIN index and sorts them. Snippets only for the rows returned.
_SELECT = """
SELECT m.id, m.conversation_id, m.role::text AS role, m.author, m.content, m.created_at
"""
_MATCHES = f"""
{_SELECT} FROM messages m, q
WHERE m.user_id = $1 AND to_tsvector('simple'::regconfig, m.content) @@ q.query
ORDER BY m.id + 0 DESC LIMIT $3
"""
# The person's newest RECENT messages, in (user_id, id DESC) order, checked one by one.
_RECENT = f"""
SELECT r.* FROM ({_SELECT} FROM messages m WHERE m.user_id = $1 ORDER BY m.id DESC LIMIT $4) r, q
WHERE to_tsvector('simple'::regconfig, r.content) @@ q.query ORDER BY r.id DESC LIMIT $3
"""
_HITS = """
WITH q AS (SELECT websearch_to_tsquery('simple', $2) AS query),
hits AS ({hits})"""
_SHOW = """
SELECT h.id, h.conversation_id, c.title AS conversation_title, h.role, h.author, h.created_at,
       ts_headline('simple', h.content, q.query,
                   'StartSel="", StopSel="", MaxWords=30, MinWords=12, ShortWord=0')
           AS snippet
FROM hits h JOIN conversations c ON c.user_id = $1 AND c.id = h.conversation_id, q
ORDER BY h.id DESC
"""
# Two ways to the newest matches. A word the person uses often is among their last RECENT
# messages: reading those is cheaper than fetching every one of its matches from the GIN index
# to sort them. Only when they hold fewer than `limit` matches is the index asked.
RECENT = 400
_FROM_RECENT = _HITS.format(hits=_RECENT) + _SHOW
_FROM_INDEX = _HITS.format(hits=_MATCHES) + _SHOW


@dataclass(slots=True)
class TitleHit:
    id: int
    title: str
    mode: str


@dataclass(slots=True)
class MessageHit:
    id: int
    conversation_id: int
    conversation_title: str
    role: str
    author: str | None
    created_at: datetime
    snippet: str


@dataclass(slots=True)
class SearchResult:
    conversations: list[TitleHit]
    messages: list[MessageHit]


def clean_query(query: str) -> str:
    return clean(query, field="q", max_chars=QUERY_MAX, one_line=True)


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@retry_on_reconnect
async def search(db: Database, *, user_id: str, query: str, limit: int = 20) -> SearchResult:
    """The person's conversations whose title holds `query`, and their newest messages that
    have its words; at most `limit` of each."""
    text = clean_query(query)
    async with db.connection() as conn:
        titles = await conn.fetch(_TITLES, user_id, _like_escaped(text), limit)
        messages = await conn.fetch(_FROM_RECENT, user_id, text, limit, RECENT)
        if len(messages) < limit:
            messages = await conn.fetch(_FROM_INDEX, user_id, text, limit)
    return SearchResult(
        conversations=[TitleHit(**dict(row)) for row in titles],
        messages=[MessageHit(**dict(row)) for row in messages],
    )
