"""Which instance runs a work session: a lease in the session's row.

The instance that starts a session's process claims the row (`owner`) and renews the lease
while it runs; it lets go when the process ends. A lease that is not renewed lapses, but
lapsing alone frees nothing: a server cut off from PostgreSQL for a while is still running
its processes. Only the reaper frees a lapsed lease, once it knows the owner is gone: on the
owner's host by seeing its server process is no longer there (then it kills the session's
process group, after checking it is the very process that was started), elsewhere only
after a long grace (it cannot see or kill processes on another host).
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass

import psutil

from parley.db import Database
from parley.models import RunStatus
from parley.work import store, store_hosts

# A lease lasts this long past its last renewal; an instance renews every RENEW_SECONDS.
LEASE_SECONDS = 5.0
RENEW_SECONDS = 1.5
# How often every instance looks for lapsed leases.
REAP_SECONDS = 1.5
# A lapsed lease of an instance on another host is freed only after this long.
OTHER_HOST_GRACE_SECONDS = 120.0
OWNER_GONE = store.OWNER_GONE


def started_at(pid: int) -> float | None:
    """When the process `pid` started (seconds since the epoch), None if there is none: with
    the pid, what identifies a process (a pid alone may be reused)."""
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:  # dead, its parent not told yet
            return None
        return float(process.create_time())
    except psutil.Error:
        return None


def is_process(pid: int | None, started: float | None) -> bool:
    """The process that had this pid and start time is still there."""
    if pid is None or started is None:
        return False
    now = started_at(pid)
    return now is not None and abs(now - started) < 0.01


@dataclass(frozen=True)
class Owner:
    """This instance, as a lease names it."""

    instance: str
    host: str
    pid: int
    started: float

    @classmethod
    def here(cls) -> Owner:
        host = socket.gethostname()
        pid = os.getpid()
        return cls(f"{host}/{uuid.uuid4().hex[:12]}", host, pid, started_at(pid) or 0.0)


async def claim(
    db: Database, *, owner: Owner, conversation_id: int, user_id: str, workspace: str
) -> str | None:
    """Take the session's lease (creating its row) unless another instance holds it;
    returns the instance holding it afterwards."""
    async with db.connection() as conn:
        return await store_hosts.claim(
            conn,
            user_id=user_id,
            conversation_id=conversation_id,
            workspace=workspace,
            instance=owner.instance,
            host=owner.host,
            pid=owner.pid,
            started=owner.started,
            lease_s=LEASE_SECONDS,
        )


async def release(db: Database, *, owner: Owner, user_id: str, conversation_id: int) -> None:
    async with db.connection() as conn:
        await store_hosts.release(
            conn, user_id=user_id, conversation_id=conversation_id, instance=owner.instance
        )


async def holder(db: Database, *, user_id: str, conversation_id: int) -> str | None:
    """The instance holding the session's lease, lapsed or not (until the reaper frees it)."""
    async with db.connection() as conn:
        return await store_hosts.owner(conn, user_id=user_id, conversation_id=conversation_id)


async def set_process(
    db: Database,
    *,
    owner: Owner,
    user_id: str,
    conversation_id: int,
    pid: int | None,
    started: float | None,
) -> None:
    async with db.connection() as conn:
        await store_hosts.set_process(
            conn,
            user_id=user_id,
            conversation_id=conversation_id,
            instance=owner.instance,
            pid=pid,
            started=started,
        )


async def renew(db: Database, *, owner: Owner) -> set[int]:
    """Extend every lease this instance holds; returns the sessions it still holds. One
    statement over everyone's sessions (on a cluster, every node's): it must find the leases
    this instance holds without knowing whose they are."""
    async with db.connection() as conn:
        return await store_hosts.renew(conn, instance=owner.instance, lease_s=LEASE_SECONDS)


@dataclass(frozen=True)
class Lapsed:
    conversation_id: int
    user_id: str
    run_id: int | None
    owner: str
    host: str | None
    owner_pid: int | None
    owner_started: float | None
    pid: int | None
    pid_started: float | None
    lapsed_for: float


async def lapsed(db: Database, *, owner: Owner) -> list[Lapsed]:
    """Other instances' leases that were not renewed in time."""
    async with db.connection() as conn:
        rows = await store_hosts.lapsed(conn, instance=owner.instance)
    return [Lapsed(**dict(row)) for row in rows]


def owner_gone(found: Lapsed, *, here: Owner) -> bool:
    """Whether the lapsed lease's server is known to be gone (see the module's docstring)."""
    if found.host == here.host:
        return not is_process(found.owner_pid, found.owner_started)
    return found.lapsed_for > OTHER_HOST_GRACE_SECONDS


async def free(db: Database, found: Lapsed) -> bool:
    """End a dead owner's session: the lease freed, its run failed and the conversation told
    why, in one transaction; False if someone else did it first (or the owner came back)."""
    async with db.transaction() as conn:
        freed = await store_hosts.free(
            conn,
            user_id=found.user_id,
            conversation_id=found.conversation_id,
            owner=found.owner,
        )
        if not freed:
            return False
        if found.run_id is not None:
            await store.end_run(
                db,
                found.user_id,
                found.run_id,
                status=RunStatus.failed,
                error=OWNER_GONE,
                error_message=(found.conversation_id, found.user_id),
                conn=conn,
            )
    return True
