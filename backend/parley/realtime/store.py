"""The realtime layer's statements: the reader's poll (what was committed since a snapshot;
`reader` says why it is one statement), the snapshot it starts from, a person's event log as
the stream reads it, and the notification channel instances talk over (NOTIFY, and who is
listening). Every function runs on the caller's connection: the listener connection, held
under its owner's lock, or a pool connection for a person's stream."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import asyncpg

_NEW = "WHERE xid >= $1::text::xid8 OR xid = ANY ($2::text[]::xid8[])"


def poll_statement(relations: Mapping[str, Sequence[str]] | None = None) -> str:
    """The poll: one statement, so the rows and the snapshot that becomes the next cursor are
    one view. `relations` names where each table's rows are on the node polled: on a Citus
    worker, the table's shards there (specs/scale.md, *Delivery per node*); by default the
    tables themselves."""

    def rows(table: str, columns: str, none: str) -> str:
        found = [table] if relations is None else relations.get(table, [])
        if not found:  # no shard of it on this node
            return f"SELECT {none} WHERE false"
        return "\n    UNION ALL ".join(f"SELECT {columns} FROM {r} {_NEW}" for r in found)

    messages = rows("messages", "conversation_id", "NULL::bigint AS conversation_id")
    events = rows(
        "user_events",
        "user_id, kind, ref",
        "NULL::text AS user_id, NULL::text AS kind, NULL::bigint AS ref",
    )
    pushes = rows("push_outbox", "1 AS found", "1 AS found")
    return f"""
WITH snap AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
new_messages AS (SELECT DISTINCT conversation_id FROM ({messages}) m),
new_events AS (SELECT DISTINCT user_id, kind, ref FROM ({events}) e),
new_pushes AS (SELECT 1 FROM ({pushes}) p LIMIT 1)
SELECT NULL::pg_snapshot AS snapshot, 'm' AS t, NULL::text AS user_id, NULL::text AS kind,
       conversation_id::bigint AS ref FROM new_messages
UNION ALL
SELECT NULL, 'e', user_id, kind, ref FROM new_events
UNION ALL
SELECT NULL, 'p', NULL, NULL, NULL FROM new_pushes
UNION ALL
SELECT s, 's', NULL, NULL, NULL FROM snap
"""


POLL = poll_statement()


async def poll(
    conn: asyncpg.Connection, *, statement: str, xmax: int, xip: list[int]
) -> list[asyncpg.Record]:
    """The rows of `statement` (a `poll_statement`) after the snapshot (xmax, xip): one per
    new conversation ('m'), person event ('e'), a 'p' if pushes were queued, and the new
    snapshot ('s')."""
    rows: list[asyncpg.Record] = await conn.fetch(statement, str(xmax), [str(x) for x in xip])
    return rows


async def snapshot(conn: asyncpg.Connection) -> object:
    """The current snapshot, as asyncpg gives a pg_snapshot."""
    return await conn.fetchval("SELECT pg_current_snapshot()")


async def listeners(conn: asyncpg.Connection, *, application_name: str) -> int:
    """How many connections go by `application_name` (each instance's listener does)."""
    return int(
        await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", application_name
        )
    )


async def notify(conn: asyncpg.Connection, *, channel: str, payload: str) -> None:
    await conn.execute("SELECT pg_notify($1, $2)", channel, payload)


# -- a person's event log ---------------------------------------------------------------


async def latest_event_id(conn: asyncpg.Connection, *, user_id: str) -> int:
    """The person's newest event id, 0 if none."""
    latest = await conn.fetchval("SELECT max(id) FROM user_events WHERE user_id = $1", user_id)
    return int(latest or 0)


EVENTS_AFTER = """SELECT id, kind, action, ref, data FROM user_events
WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3"""


async def events_after(
    conn: asyncpg.Connection, *, user_id: str, after: int, limit: int
) -> list[asyncpg.Record]:
    """Up to `limit` of the person's events after id `after`, oldest first, as rows (the
    API renders each: `parley.api.person_events`)."""
    rows: list[asyncpg.Record] = await conn.fetch(EVENTS_AFTER, user_id, after, limit)
    return rows
