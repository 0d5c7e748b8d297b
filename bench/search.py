"""Search p99 over a conversation set of 1,000,000 messages: whole words, prefixes, typos.

Rows are written with `INSERT ... SELECT generate_series` (the search indexes, full-text and
trigram, are dropped for the bulk load and built again afterwards, as one would for any bulk
import); each search is `parley.search.search` (what GET /api/{user_id}/search runs) on a
connection checked out of a `parley.db.Database` pool, as in the server. The text is words of
a 5,000-word vocabulary of made-up pronounceable words ("kadoril", "semuta"), drawn with a
skewed (cubic) distribution, so some words are in a tenth of all messages and others in a
handful. Each query is by a random person, one of three kinds: one or two whole words; the
first 3 to 5 letters of a word (a prefix, as typed); a word of 7+ letters with its last two
letters swapped ("plumbre" for "plumber"), which no message holds, so the trigram search
answers it.
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
INDEXES = {
    "ix_messages_search": "gin (user_id, to_tsvector('simple'::regconfig, content))",
    "ix_messages_trigrams": "gin (user_id, content gin_trgm_ops)",
}
USER_PREFIX = "bench-search-"
KINDS = ("words", "prefix", "typo")

# $1: the conversation ids, $2: how many messages, $3: the vocabulary. Conversation k
# belongs to user k % the number of people.
_FILL = f"""
INSERT INTO messages (conversation_id, user_id, role, author, kind, content, error, created_at)
SELECT c.id, c.user_id,
       (CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END)::message_role,
       CASE WHEN g % 2 = 1 THEN c.user_id ELSE 'assistant' END,
       'message'::message_kind,
       (SELECT string_agg(($3::text[])[1 + floor({VOCABULARY} * random() ^ 3)::int], ' ')
        FROM generate_series(1, {WORDS_PER_MESSAGE}) AS w WHERE w > g * 0),
       false, now() - make_interval(secs => $2::int - g)
FROM generate_series(1, $2::int) AS g
JOIN LATERAL (SELECT id, user_id FROM conversations
              WHERE id = ($1::int[])[1 + g % cardinality($1::int[])]) c ON true
"""


def vocabulary(rng: random.Random) -> list[str]:
    """Distinct made-up words of 2 to 4 syllables."""
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", ["", "", "", "n", "r", "l", "s"]
    words: dict[str, None] = {}
    while len(words) < VOCABULARY:
        syllables = rng.choice((2, 3, 3, 4))
        word = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(syllables)
        )
        words[word] = None
    return list(words)


def _word(rng: random.Random, words: list[str]) -> str:
    return words[int(VOCABULARY * rng.random() ** 3)]


def query(rng: random.Random, words: list[str], kind: str) -> str:
    if kind == "words":
        return " ".join(_word(rng, words) for _ in range(rng.choice((1, 1, 2))))
    if kind == "prefix":
        word = _word(rng, words)
        return word[: min(len(word), rng.choice((3, 4, 5)))]
    while len(word := _word(rng, words)) < 7:
        pass
    return word[:-2] + word[-1] + word[-2]


async def measure_search(
    url: str,
    *,
    messages: int,
    searches: int,
    cleanup: bool,
    budget: float = 20.0,
    users: int = USERS,
) -> dict[str, Any]:
    from parley import conversations, search
    from parley.db import Database
    from parley.messages import store as message_store
    from parley.models import ConversationMode

    db = await Database.connect(url, max_connections=2)
    rng = random.Random(19)
    words = vocabulary(rng)
    out: dict[str, Any] = {"messages": messages, "users": users}
    try:
        ids = []
        for k in range(users * CONVERSATIONS_PER_USER):
            ids.append(
                await conversations.create_conversation(
                    db,
                    user_id=f"{USER_PREFIX}{k % users}",
                    mode=ConversationMode.chat,
                    title=f"bench conversation {k}",
                )
            )
        async with pg_connection(url) as conn:
            for name in INDEXES:
                await conn.execute(f"DROP INDEX IF EXISTS {name}")
            t0 = time.perf_counter()
            await conn.execute(_FILL, ids, messages, words)
            out["insert_seconds"] = time.perf_counter() - t0
            out["index_seconds"], out["index_size"] = {}, {}
            for name, how in INDEXES.items():
                t0 = time.perf_counter()
                await conn.execute(f"CREATE INDEX {name} ON messages USING {how}")
                out["index_seconds"][name] = time.perf_counter() - t0
                out["index_size"][name] = await conn.fetchval(
                    f"SELECT pg_size_pretty(pg_relation_size('{name}'))"
                )
            await conn.execute("VACUUM ANALYZE messages")
            out["table_rows"] = int(await conn.fetchval("SELECT count(*) FROM messages"))

        async def one(user: str, q: str) -> tuple[float, int]:
            t = time.perf_counter()
            found = await search.search(db, user_id=user, query=q, limit=20)
            return time.perf_counter() - t, len(found.conversations)

        def person() -> str:
            return f"{USER_PREFIX}{rng.randrange(users)}"

        for i in range(30):  # warm the pool, the caches and the statement cache
            await one(person(), query(rng, words, KINDS[i % 3]))
        times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        hits: list[int] = []
        t_end = time.perf_counter() + budget
        for i in range(searches):
            kind = KINDS[i % 3]
            elapsed, n = await one(person(), query(rng, words, kind))
            times[kind].append(elapsed)
            hits.append(n)
            if i >= 300 and time.perf_counter() > t_end:
                break
        every = [t for kind in KINDS for t in times[kind]]
        out["times"] = {"p50": pct(every, 50), "p99": pct(every, 99), "n": len(every)}
        out["by_kind"] = {
            kind: {"p50": pct(ts, 50), "p99": pct(ts, 99), "n": len(ts)}
            for kind, ts in times.items()
        }
        out["with_hits"] = sum(1 for n in hits if n) / len(hits)
        plans = {}
        typo = query(random.Random(3), words, "typo")
        async with pg_connection(url) as conn:
            user = f"{USER_PREFIX}0"
            for name, sql, args in (
                (
                    f"a prefix (`{words[0][:3]}`, of the most frequent word), the GIN index",
                    message_store._FROM_INDEX,
                    [user, f"'{words[0][:3]}':*", message_store.CANDIDATES, "'x'", 20],
                ),
                (
                    f"a typo (`{typo}`), the trigram index",
                    message_store._similar_sql(1, False),
                    [user, message_store.CANDIDATES, 20, typo],
                ),
            ):
                plan = await conn.fetch(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {sql}", *args)
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
