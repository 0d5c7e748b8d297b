"""Search p99 over a conversation set of 1,000,000 messages.

Rows are written with `INSERT ... SELECT generate_series` (the search index is dropped for the
bulk load and built again afterwards, as one would for any bulk import); each search is
`parley.search.search` (what GET /api/{user_id}/search runs) on a connection checked out of a
`parley.db.Database` pool, as in the server. The text is words of a 5,000-word vocabulary
drawn with a skewed (cubic) distribution, so some words are in a tenth of all messages and
others in a handful; each query is one or two words of random rank, by a random user.
"""

from __future__ import annotations

import random
import time
from typing import Any

from lib import pct, pg_connection

USERS = 100
CONVERSATIONS_PER_USER = 10
VOCABULARY = 5_000
WORDS_PER_MESSAGE = 12
INDEX = "ix_messages_search"
USER_PREFIX = "bench-search-"

# $1: the conversation ids, $2: how many messages. Conversation k belongs to user k % USERS.
_FILL = f"""
INSERT INTO messages (conversation_id, user_id, role, author, kind, content, error, created_at)
SELECT c.id, c.user_id,
       (CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END)::message_role,
       CASE WHEN g % 2 = 1 THEN c.user_id ELSE 'assistant' END,
       'message'::message_kind,
       (SELECT string_agg('w' || floor({VOCABULARY} * random() ^ 3)::int, ' ')
        FROM generate_series(1, {WORDS_PER_MESSAGE}) AS w WHERE w > g * 0),
       false, now() - make_interval(secs => $2::int - g)
FROM generate_series(1, $2::int) AS g
JOIN LATERAL (SELECT id, user_id FROM conversations
              WHERE id = ($1::int[])[1 + g % cardinality($1::int[])]) c ON true
"""
_INDEX_SQL = f"CREATE INDEX {INDEX} ON messages USING gin (user_id, to_tsvector('simple'::regconfig, content))"


def _query(rng: random.Random) -> str:
    words = [f"w{int(VOCABULARY * rng.random() ** 3)}" for _ in range(rng.choice((1, 1, 2)))]
    return " ".join(words)


async def measure_search(
    url: str, *, messages: int, searches: int, cleanup: bool, budget: float = 20.0
) -> dict[str, Any]:
    from parley import conversations, search
    from parley.db import Database
    from parley.messages import store as message_store
    from parley.models import ConversationMode

    db = await Database.connect(url, max_connections=2)
    rng = random.Random(19)
    out: dict[str, Any] = {"messages": messages}
    try:
        ids = []
        for k in range(USERS * CONVERSATIONS_PER_USER):
            ids.append(
                await conversations.create_conversation(
                    db,
                    user_id=f"{USER_PREFIX}{k % USERS}",
                    mode=ConversationMode.chat,
                    title=f"bench conversation {k}",
                )
            )
        async with pg_connection(url) as conn:
            await conn.execute(f"DROP INDEX IF EXISTS {INDEX}")
            t0 = time.perf_counter()
            await conn.execute(_FILL, ids, messages)
            out["insert_seconds"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            await conn.execute(_INDEX_SQL)
            out["index_seconds"] = time.perf_counter() - t0
            await conn.execute("VACUUM ANALYZE messages")
            out["table_rows"] = int(await conn.fetchval("SELECT count(*) FROM messages"))
            out["index_size"] = await conn.fetchval(
                f"SELECT pg_size_pretty(pg_relation_size('{INDEX}'))"
            )

        async def one(user: str, q: str) -> tuple[float, int]:
            t = time.perf_counter()
            found = await search.search(db, user_id=user, query=q, limit=20)
            return time.perf_counter() - t, len(found.messages)

        for _ in range(30):  # warm the pool, the caches and the statement cache
            await one(f"{USER_PREFIX}{rng.randrange(USERS)}", _query(rng))
        times: list[float] = []
        hits: list[int] = []
        t_end = time.perf_counter() + budget
        for i in range(searches):
            elapsed, n = await one(f"{USER_PREFIX}{rng.randrange(USERS)}", _query(rng))
            times.append(elapsed)
            hits.append(n)
            if i >= 200 and time.perf_counter() > t_end:
                break
        out["times"] = {"p50": pct(times, 50), "p99": pct(times, 99), "n": len(times)}
        out["with_hits"] = sum(1 for n in hits if n) / len(hits)
        plans = {}
        async with pg_connection(url) as conn:  # both ways, each for the word it suits
            for name, sql, word, extra in (
                (
                    "newest messages first, a frequent word",
                    message_store._FROM_RECENT,
                    "w0",
                    [message_store.RECENT],
                ),
                ("the GIN index, a rare word", message_store._FROM_INDEX, f"w{VOCABULARY - 1}", []),
            ):
                plan = await conn.fetch(
                    f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {sql}",
                    f"{USER_PREFIX}0",
                    word,
                    20,
                    *extra,
                )
                plans[name] = "\n".join(row[0] for row in plan)
        out["plans"] = plans
        return out
    finally:
        if cleanup:  # a real DATABASE_URL: leave no bench rows behind
            async with pg_connection(url) as conn:
                await conn.execute(
                    "DELETE FROM conversations WHERE user_id LIKE $1", f"{USER_PREFIX}%"
                )
        await db.close()
