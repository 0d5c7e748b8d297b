"""The statements that tie a work session to a host: the lease naming the instance that runs
its process (`work_sessions.owner` and the columns beside it, `ownership`), the note sent to
that instance (`pg_notify`, `manager`), and the person's own host uid (`work_uids`,
`identity`). The rest of a session's row is `store`'s.

Each function runs on the caller's connection, inside its transaction when it holds one.
Statements name the person's user id, but those that look for one instance's leases across
everyone's sessions (on a cluster, every node's): they cannot know whose they are.
"""

from __future__ import annotations

import asyncpg

# -- leases -----------------------------------------------------------------------------

_CLAIM = """INSERT INTO work_sessions (conversation_id, user_id, workspace, status, owner,
    lease_expires_at, host, owner_pid, owner_started)
VALUES ($1, $2, $3, 'starting', $4, now() + make_interval(secs => $5), $6, $7, $8)
ON CONFLICT (user_id, conversation_id) DO UPDATE SET owner = EXCLUDED.owner,
    lease_expires_at = EXCLUDED.lease_expires_at, host = EXCLUDED.host,
    owner_pid = EXCLUDED.owner_pid, owner_started = EXCLUDED.owner_started,
    workspace = EXCLUDED.workspace, pid = NULL, pid_started = NULL
WHERE work_sessions.owner IS NULL OR work_sessions.owner = EXCLUDED.owner
RETURNING owner"""


async def claim(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    workspace: str,
    instance: str,
    host: str,
    pid: int,
    started: float,
    lease_s: float,
) -> str | None:
    """Take the session's lease for `instance` (creating its row) unless another instance
    holds it; the instance holding it afterwards."""
    holder: str | None = await conn.fetchval(
        _CLAIM,
        conversation_id,
        user_id,
        workspace,
        instance,
        lease_s,
        host,
        pid,
        started,
    )
    if holder is None:
        holder = await owner(conn, user_id=user_id, conversation_id=conversation_id)
    return holder


async def owner(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> str | None:
    """The instance holding the session's lease, lapsed or not."""
    found: str | None = await conn.fetchval(
        "SELECT owner FROM work_sessions WHERE user_id = $2 AND conversation_id = $1",
        conversation_id,
        user_id,
    )
    return found


async def release(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int, instance: str
) -> None:
    """`instance` lets the session's lease go (nothing happens if it does not hold it)."""
    await conn.execute(
        """UPDATE work_sessions SET owner = NULL, lease_expires_at = NULL, pid = NULL,
        pid_started = NULL WHERE user_id = $3 AND conversation_id = $1 AND owner = $2""",
        conversation_id,
        instance,
        user_id,
    )


async def set_process(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    conversation_id: int,
    instance: str,
    pid: int | None,
    started: float | None,
) -> None:
    """The session's process (pid and start time), if `instance` holds its lease."""
    await conn.execute(
        """UPDATE work_sessions SET pid = $3, pid_started = $4
        WHERE user_id = $5 AND conversation_id = $1 AND owner = $2""",
        conversation_id,
        instance,
        pid,
        started,
        user_id,
    )


async def renew(conn: asyncpg.Connection, *, instance: str, lease_s: float) -> set[int]:
    """Extend every lease `instance` holds; the sessions (conversation ids) it holds."""
    rows = await conn.fetch(
        """UPDATE work_sessions SET lease_expires_at = now() + make_interval(secs => $2)
        WHERE owner = $1 RETURNING conversation_id""",
        instance,
        lease_s,
    )
    return {row["conversation_id"] for row in rows}


async def lapsed(conn: asyncpg.Connection, *, instance: str) -> list[asyncpg.Record]:
    """Other instances' leases that were not renewed in time, with the owner's and the
    session's processes and how long ago each lapsed (`lapsed_for`, seconds)."""
    return await conn.fetch(
        """SELECT conversation_id, user_id, run_id, owner, host, owner_pid, owner_started,
            pid, pid_started,
            extract(epoch FROM now() - lease_expires_at)::float8 AS lapsed_for
        FROM work_sessions
        WHERE owner IS NOT NULL AND owner <> $1 AND lease_expires_at < now()""",
        instance,
    )


async def free(conn: asyncpg.Connection, *, user_id: str, conversation_id: int, owner: str) -> bool:
    """End the session of a lapsed lease still held by `owner`; False if it is not (someone
    else freed it first, or the owner came back)."""
    freed = await conn.fetchval(
        """UPDATE work_sessions SET owner = NULL, lease_expires_at = NULL, pid = NULL,
        pid_started = NULL, status = 'ended', updated_at = now()
        WHERE user_id = $3 AND conversation_id = $1 AND owner = $2
          AND lease_expires_at < now()
        RETURNING conversation_id""",
        conversation_id,
        owner,
        user_id,
    )
    return freed is not None


async def notify(conn: asyncpg.Connection, *, channel: str, payload: str) -> None:
    """A note to every instance listening on `channel` (the one it names acts on it)."""
    await conn.execute("SELECT pg_notify($1, $2)", channel, payload)


# -- host uids --------------------------------------------------------------------------


async def uid(conn: asyncpg.Connection, *, user_id: str) -> int | None:
    """The person's host uid, if one was allocated."""
    found: int | None = await conn.fetchval("SELECT uid FROM work_uids WHERE user_id = $1", user_id)
    return found


async def lock_uids(conn: asyncpg.Connection) -> None:
    """One allocation at a time across instances, until the caller's transaction ends: the
    next free uid is then free."""
    await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('parley-work-uids', 0))")


async def next_uid(conn: asyncpg.Connection, *, first: int, last: int) -> int:
    """The uid after the highest taken in `first`..`last` (`first` if none is): possibly
    `last + 1`, which the caller refuses."""
    chosen: int = await conn.fetchval(
        "SELECT COALESCE(max(uid) + 1, $1) FROM work_uids WHERE uid BETWEEN $1 AND $2",
        first,
        last,
    )
    return chosen


async def keep_uid(conn: asyncpg.Connection, *, user_id: str, uid: int) -> None:
    await conn.execute("INSERT INTO work_uids (user_id, uid) VALUES ($1, $2)", user_id, uid)
