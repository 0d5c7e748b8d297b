"""Loading the last 50 messages of a conversation of 100 and of 1,000,000 messages.

Rows are written with `INSERT ... SELECT generate_series`; each load is
`parley.conversations.last_messages` (the function the chat turn uses) in a fresh session, as
in the server. Two situations are measured:

  A. the 1,000,000-message conversation was written last (its rows are the newest in the table);
  B. then 100,000 newer messages arrive in 100 other conversations — what a live hub looks like.

The plans shown are PostgreSQL's for the very statement `last_messages` sends (captured from
the engine), prepared and executed a few times first, as asyncpg's statement cache does.
For comparison, B is also measured with an alternative statement (see `alternative_query`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY

from lib import pct

USER = "bench-history"
INDEX = "ix_messages_conversation_id_id"
OTHER_CONVERSATIONS = 100
OTHER_MESSAGES = 100_000

_FILL = """
INSERT INTO messages (conversation_id, user_id, role, author, kind, content, error, created_at)
SELECT (CAST(:ids AS integer[]))[1 + g % cardinality(CAST(:ids AS integer[]))], CAST(:uid AS varchar),
       (CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END)::message_role,
       CASE WHEN g % 2 = 1 THEN CAST(:uid AS varchar) ELSE 'assistant' END,
       'message'::message_kind,
       'bench message number ' || g || ': add a task to buy milk and remind me to water the plants',
       false,
       now() - make_interval(secs => CAST(:n AS integer) - g)
FROM generate_series(1, CAST(:n AS integer)) AS g
"""


def alternative_query(conversation_id: int, limit: int) -> Any:
    """Same rows, but PostgreSQL can only get them in order from (conversation_id, id DESC):
    `= ANY(array)` is not folded into a constant, so ORDER BY conversation_id, id DESC cannot
    be served by the primary key."""
    from parley.models import Message

    return (
        sa.select(Message)
        .where(Message.conversation_id == sa.any_(sa.bindparam("cids", [conversation_id], type_=ARRAY(sa.Integer))))  # type: ignore[arg-type]
        .order_by(Message.conversation_id, Message.id.desc())  # type: ignore[union-attr,arg-type]
        .limit(limit)
    )


async def measure_history(
    url: str, *, sizes: tuple[int, int], reps: int, cleanup: bool, limit: int = 50, budget: float = 8.0
) -> dict[str, Any]:
    from parley import conversations
    from parley.db import Database, make_engine
    from parley.models import ConversationMode

    db = Database(make_engine(url, pool_size=2))
    small_n, big_n = sizes
    out: dict[str, Any] = {"sizes": sizes, "insert_seconds": {}, "scenarios": {}}

    async def new_conversation(title: str) -> int:
        conv = await conversations.create_conversation(db, user_id=USER, mode=ConversationMode.chat, title=title)
        assert conv.id is not None
        return conv.id

    async def fill(ids: list[int], n: int) -> float:
        """n messages spread round-robin over the conversations `ids`, in one statement."""
        t0 = time.perf_counter()
        async with db.transaction() as session:
            await session.execute(sa.text(_FILL), {"ids": ids, "uid": USER, "n": n})
        return time.perf_counter() - t0

    async def vacuum() -> int:
        async with db.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.exec_driver_sql("VACUUM ANALYZE messages")
            return int((await conn.exec_driver_sql("SELECT count(*) FROM messages")).scalar_one())

    async def timed(load: Callable[[], Awaitable[list[Any]]]) -> float:
        t = time.perf_counter()
        rows = await load()
        elapsed = time.perf_counter() - t
        assert len(rows) == limit and rows[0].id < rows[-1].id
        return elapsed

    def by_backend(cid: int) -> Callable[[], Awaitable[list[Any]]]:
        async def load() -> list[Any]:
            async with db.session() as session:
                return await conversations.last_messages(session, conversation_id=cid, limit=limit)
        return load

    def by_alternative(cid: int) -> Callable[[], Awaitable[list[Any]]]:
        async def load() -> list[Any]:
            async with db.session() as session:
                rows = list((await session.scalars(alternative_query(cid, limit))).all())
            rows.reverse()
            return rows
        return load

    async def measure(loaders: dict[int, Callable[[], Awaitable[list[Any]]]]) -> dict[int, dict[str, Any]]:
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

    plain_arg: Callable[[int], str] = str

    def array_arg(cid: int) -> str:
        return f"ARRAY[{cid}]"

    async def plans(cids: dict[int, int], by: Callable[[int], Callable[[], Awaitable[list[Any]]]],
                    arg: Callable[[int], str]) -> tuple[str, dict[int, str]]:
        """EXPLAIN ANALYZE of the statement `by` sends, captured from the engine, prepared and
        executed a few times first (past the plan cache's custom-plan warm-up, as asyncpg's
        statement cache would be); `arg` renders the conversation parameter."""
        captured: list[str] = []

        def capture(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            captured.append(statement)

        sa.event.listen(db.engine.sync_engine, "before_cursor_execute", capture)
        try:
            await by(cids[big_n])()
        finally:
            sa.event.remove(db.engine.sync_engine, "before_cursor_execute", capture)
        statement = next(s for s in captured if "FROM messages" in s)
        result = {}
        async with db.engine.connect() as conn:
            await conn.exec_driver_sql(f"PREPARE bench_last_messages AS {statement}")
            if re.search(r"\$1::\w+\[\]", statement):  # the conversation goes in as an array
                arg = array_arg
            args = {n: (f"{arg(cid)}, {limit}" if "$2" in statement else arg(cid)) for n, cid in cids.items()}
            for _ in range(4):
                for a in args.values():
                    await conn.exec_driver_sql(f"EXECUTE bench_last_messages({a})")
            for n, a in args.items():
                plan = (await conn.exec_driver_sql(
                    f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_last_messages({a})"
                )).scalars().all()
                result[n] = "\n".join(plan)
            await conn.exec_driver_sql("DEALLOCATE bench_last_messages")
        return " ".join(statement.split()), result

    try:
        cids = {small_n: await new_conversation(f"{small_n} messages")}
        out["insert_seconds"][small_n] = await fill([cids[small_n]], small_n)
        cids[big_n] = await new_conversation(f"{big_n} messages")
        out["insert_seconds"][big_n] = await fill([cids[big_n]], big_n)
        rows_a = await vacuum()
        a = await measure({n: by_backend(cid) for n, cid in cids.items()})
        out["statement"], plans_a = await plans(cids, by_backend, plain_arg)
        out["scenarios"]["A"] = {"table_rows": rows_a, "times": a, "plans": plans_a}

        others = [await new_conversation("other traffic") for _ in range(OTHER_CONVERSATIONS)]
        out["insert_seconds"]["other"] = await fill(others, OTHER_MESSAGES)
        rows_b = await vacuum()
        b = await measure({n: by_backend(cid) for n, cid in cids.items()})
        _, plans_b = await plans(cids, by_backend, plain_arg)
        alt = await measure({n: by_alternative(cid) for n, cid in cids.items()})
        out["alternative_statement"], plans_alt = await plans(cids, by_alternative, array_arg)
        out["scenarios"]["B"] = {"table_rows": rows_b, "times": b, "plans": plans_b, "alternative": alt,
                                 "alternative_plans": plans_alt}
        return out
    finally:
        if cleanup:  # a real DATABASE_URL: leave no bench rows behind
            await _delete_bench_rows(db)
        await db.dispose()


async def _delete_bench_rows(db: Any) -> None:
    """Delete the bench's conversations (their messages cascade). Each deleted message makes
    PostgreSQL look for messages whose `reply_to` points at it; without an index on
    `reply_to` that is a scan of the whole table per message, hours for a million. So a
    temporary index is made for the delete when the schema has none, and dropped after."""
    async with db.engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        defs = (await conn.exec_driver_sql("SELECT indexdef FROM pg_indexes WHERE tablename = 'messages'")).scalars().all()
        temporary = not any("(reply_to" in d for d in defs)
        if temporary:
            await conn.exec_driver_sql(
                "CREATE INDEX IF NOT EXISTS bench_tmp_reply_to ON messages (reply_to) WHERE reply_to IS NOT NULL"
            )
        try:
            await conn.execute(sa.text("DELETE FROM conversations WHERE user_id = :u"), {"u": USER})
        finally:
            if temporary:
                await conn.exec_driver_sql("DROP INDEX IF EXISTS bench_tmp_reply_to")
