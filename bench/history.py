"""Loading the last 50 messages of a conversation of 100 and of 1,000,000 messages.

Rows are written with `INSERT ... SELECT generate_series`; each load is
`parley.messages.store.last_messages` (the function the chat turn uses) on a connection
checked out of a `parley.db.Database` pool for that load, as in the server. Two situations
are measured:

  A. the 1,000,000-message conversation was written last (its rows are the newest in the table);
  B. then 100,000 newer messages arrive in 100 other conversations — what a live hub looks like.

The plans shown are PostgreSQL's for the very statement `last_messages` sends (its `_LAST`),
prepared and executed a few times first, as asyncpg's statement cache does. B is also
measured with an alternative statement (`ALTERNATIVE`), for comparison, when `_LAST` differs
from it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from lib import pct, pg_connection

USER = "bench-history"
INDEX = "ix_messages_user_id_conversation_id_id"  # the hot paths lead with the person
OTHER_CONVERSATIONS = 100
OTHER_MESSAGES = 100_000

# $1: the conversation ids (round robin), $2: the user, $3: how many messages.
_FILL = """
INSERT INTO messages (conversation_id, user_id, role, author, kind, content, error, created_at)
SELECT ($1::int[])[1 + g % cardinality($1::int[])], $2::text,
       (CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END)::message_role,
       CASE WHEN g % 2 = 1 THEN $2::text ELSE 'assistant' END,
       'message'::message_kind,
       'bench message number ' || g || ': add a task to buy milk and remind me to water the plants',
       false,
       now() - make_interval(secs => $3::int - g)
FROM generate_series(1, $3::int) AS g
"""


def _alternative() -> str:
    """Same rows, but PostgreSQL can only get them in order from (conversation_id, id DESC):
    `= ANY(array)` is not folded into a constant, so ORDER BY conversation_id, id DESC cannot
    be served by the primary key. Parameters: ([conversation_id], limit), as `_LAST`'s."""
    from parley.messages.store import MESSAGE_COLUMNS

    return (
        f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ANY($1::int[]) "
        "ORDER BY conversation_id, id DESC LIMIT $2"
    )


def _flat(statement: str) -> str:
    return " ".join(statement.split())


def _takes_array(sql: str) -> bool:
    """Whether the statement takes the conversation as an array (`$1::int[]`), as `_LAST` does."""
    return re.search(r"\$1::\w+\[\]", sql) is not None


async def measure_history(
    url: str,
    *,
    sizes: tuple[int, int],
    reps: int,
    cleanup: bool,
    limit: int = 50,
    budget: float = 8.0,
) -> dict[str, Any]:
    from parley import conversations
    from parley.db import Database
    from parley.messages import store as message_store
    from parley.messages.store import StoredMessage
    from parley.models import ConversationMode

    db = await Database.connect(url, max_connections=2)
    small_n, big_n = sizes
    out: dict[str, Any] = {"sizes": sizes, "insert_seconds": {}, "scenarios": {}}
    statement = _flat(message_store._LAST)
    alternative = _flat(_alternative())

    async def new_conversation(title: str) -> int:
        return await conversations.create_conversation(
            db, user_id=USER, mode=ConversationMode.chat, title=title
        )

    async def fill(ids: list[int], n: int) -> float:
        """n messages spread round-robin over the conversations `ids`, in one statement."""
        t0 = time.perf_counter()
        async with db.transaction() as conn:
            await conn.execute(_FILL, ids, USER, n)
        return time.perf_counter() - t0

    async def vacuum() -> int:
        async with db.connection() as conn:  # asyncpg runs each statement in autocommit
            await conn.execute("VACUUM ANALYZE messages")
            return int(await conn.fetchval("SELECT count(*) FROM messages"))

    async def timed(load: Callable[[], Awaitable[list[Any]]]) -> float:
        t = time.perf_counter()
        rows = await load()
        elapsed = time.perf_counter() - t
        assert len(rows) == limit and rows[0].id < rows[-1].id
        return elapsed

    def by_backend(cid: int) -> Callable[[], Awaitable[list[Any]]]:
        async def load() -> list[Any]:
            async with db.connection() as conn:
                return await message_store.last_messages(
                    conn, user_id=USER, conversation_id=cid, limit=limit
                )

        return load

    def by_alternative(cid: int) -> Callable[[], Awaitable[list[Any]]]:
        async def load() -> list[Any]:
            async with db.connection() as conn:
                person = [USER] if "$3" in alternative else []
                rows = await conn.fetch(
                    alternative, [cid] if _takes_array(alternative) else cid, limit, *person
                )
            return [StoredMessage(**row) for row in reversed(rows)]

        return load

    async def measure(
        loaders: dict[int, Callable[[], Awaitable[list[Any]]]],
    ) -> dict[int, dict[str, Any]]:
        for load in loaders.values():  # warm the pool, the caches and the statement cache
            for _ in range(20):
                await timed(load)
        times: dict[int, list[float]] = {n: [] for n in loaders}
        t_end = time.perf_counter() + budget
        for i in range(reps):  # interleaved, so machine noise hits both sizes alike
            for n, load in loaders.items():
                times[n].append(await timed(load))
            if i >= 100 and time.perf_counter() > t_end:
                break
        return {n: {"p50": pct(t, 50), "p99": pct(t, 99), "reps": len(t)} for n, t in times.items()}

    async def plans(cids: dict[int, int], sql: str) -> dict[int, str]:
        """EXPLAIN ANALYZE of `sql` (parameters: the conversation, the limit and, as the
        backend's statement has since every statement names its person, the person), prepared and
        executed a few times first: past the plan cache's custom-plan warm-up, as asyncpg's
        statement cache would be."""
        array = _takes_array(sql)
        args = {
            n: (f"ARRAY[{cid}]" if array else str(cid))
            + (f", {limit}" if "$2" in sql else "")
            + (f", '{USER}'" if "$3" in sql else "")
            for n, cid in cids.items()
        }
        result = {}
        async with db.connection() as conn:
            await conn.execute(f"PREPARE bench_last_messages AS {sql}")
            try:
                for _ in range(4):
                    for a in args.values():
                        await conn.execute(f"EXECUTE bench_last_messages({a})")
                for n, a in args.items():
                    plan = await conn.fetch(
                        f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_last_messages({a})"
                    )
                    result[n] = "\n".join(row[0] for row in plan)
            finally:
                await conn.execute("DEALLOCATE bench_last_messages")
        return result

    try:
        cids = {small_n: await new_conversation(f"{small_n} messages")}
        out["insert_seconds"][small_n] = await fill([cids[small_n]], small_n)
        cids[big_n] = await new_conversation(f"{big_n} messages")
        out["insert_seconds"][big_n] = await fill([cids[big_n]], big_n)
        rows_a = await vacuum()
        a = await measure({n: by_backend(cid) for n, cid in cids.items()})
        out["statement"] = statement
        out["scenarios"]["A"] = {
            "table_rows": rows_a,
            "times": a,
            "plans": await plans(cids, statement),
        }

        others = [await new_conversation("other traffic") for _ in range(OTHER_CONVERSATIONS)]
        out["insert_seconds"]["other"] = await fill(others, OTHER_MESSAGES)
        rows_b = await vacuum()
        b = await measure({n: by_backend(cid) for n, cid in cids.items()})
        out["scenarios"]["B"] = {
            "table_rows": rows_b,
            "times": b,
            "plans": await plans(cids, statement),
        }
        out["alternative_statement"] = alternative
        if alternative != statement:  # else it would only measure `last_messages` again
            out["scenarios"]["B"]["alternative"] = await measure(
                {n: by_alternative(cid) for n, cid in cids.items()}
            )
            out["scenarios"]["B"]["alternative_plans"] = await plans(cids, alternative)
        return out
    finally:
        if cleanup:  # a real DATABASE_URL: leave no bench rows behind
            await _delete_bench_rows(url)
        await db.close()


async def _delete_bench_rows(url: str) -> None:
    """Delete the bench's conversations (their messages cascade). Each deleted message makes
    PostgreSQL look for messages whose `reply_to` points at it; without an index on
    `reply_to` that is a scan of the whole table per message, hours for a million. So a
    temporary index is made for the delete when the schema has none, and dropped after."""
    async with pg_connection(url) as conn:
        defs = [
            r[0]
            for r in await conn.fetch(
                "SELECT indexdef FROM pg_indexes WHERE tablename = 'messages'"
            )
        ]
        temporary = not any("(reply_to" in d for d in defs)
        if temporary:
            await conn.execute(
                "CREATE INDEX IF NOT EXISTS bench_tmp_reply_to ON messages (reply_to) WHERE reply_to IS NOT NULL"
            )
        try:
            await conn.execute("DELETE FROM conversations WHERE user_id = $1", USER)
        finally:
            if temporary:
                await conn.execute("DROP INDEX IF EXISTS bench_tmp_reply_to")
