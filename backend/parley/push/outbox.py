"""The push outbox: rows written by triggers (migration 0049) in the transaction of the event
they announce, claimed by the senders of every instance, each row by one of them.

A claim is a lease (`lease_until`), taken with `FOR UPDATE SKIP LOCKED`: two instances never
take the same row, and a row whose sender died mid-send is taken again once its lease
lapses. A closing push waits while its device's opening push is still pending, so a device
never gets them in the wrong order. Rows are claimed person by person (the people with
something due are found first): each claim, renewal and outcome is one statement about one
person's rows, which on a Citus cluster is one node's work.
"""

from __future__ import annotations

import random
from enum import StrEnum

import asyncpg

from . import store
from .store import Claimed


class Outcome(StrEnum):
    sent = "sent"
    retry = "retry"  # 429 or 5xx or no answer: again later, up to the bound
    gone = "gone"  # 404/410: the subscription is dead; it is dropped
    failed = "failed"  # refused for good (another 4xx, a host no longer allowed)


LEASE_SECONDS = 60.0


async def claim(conn: asyncpg.Connection, *, limit: int, max_attempts: int) -> list[Claimed]:
    """Up to `limit` due pushes, leased to this instance, person by person."""
    claimed: list[Claimed] = []
    for person in await store.due_people(conn, limit=limit):
        if len(claimed) >= limit:
            break
        await store.give_up(conn, user_id=person, max_attempts=max_attempts)
        claimed += await store.claim(
            conn, user_id=person, limit=limit - len(claimed), lease_seconds=LEASE_SECONDS
        )
    return claimed


def _by_person(rows: list[tuple[str, int]]) -> dict[str, list[int]]:
    """(owner, id) pairs as each owner's ids, in order, each id once."""
    people: dict[str, list[int]] = {}
    for user_id, row_id in rows:
        ids = people.setdefault(user_id, [])
        if row_id not in ids:
            ids.append(row_id)
    return people


async def renew(conn: asyncpg.Connection, rows: list[Claimed]) -> None:
    """Extend the lease on rows this instance claimed and is still sending."""
    for user_id, ids in _by_person([(r.user_id, r.id) for r in rows]).items():
        await store.renew(conn, user_id=user_id, ids=ids, lease_seconds=LEASE_SECONDS)


def backoff(attempts: int, *, base: float, retry_after: float | None) -> float:
    """Seconds before the next try: what the service asked for, else doubling with jitter."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), 3600.0)
    return min(base * 2 ** (attempts - 1), 600.0) * (0.5 + random.random() / 2)


async def settle(
    conn: asyncpg.Connection,
    results: list[tuple[Claimed, Outcome, str | None, float]],
    *,
    max_attempts: int,
) -> None:
    """Record what happened to each claimed push (`delay`: seconds before a retry)."""
    sent = [(c.user_id, c.id) for c, outcome, _e, _d in results if outcome is Outcome.sent]
    for user_id, ids in _by_person(sent).items():
        await store.mark_sent(conn, user_id=user_id, ids=ids)
    devices = sorted(
        {
            (c.user_id, c.subscription_id)
            for c, outcome, _e, _d in results
            if outcome is Outcome.sent
        }
    )
    for user_id, ids in _by_person(devices).items():
        await store.devices_sent(conn, user_id=user_id, ids=ids)
    gone = sorted(
        {
            (c.user_id, c.subscription_id)
            for c, outcome, _e, _d in results
            if outcome is Outcome.gone
        }
    )
    for user_id, ids in _by_person(gone).items():  # their outbox rows go too (CASCADE)
        await store.drop_devices(conn, user_id=user_id, ids=ids)
    for claimed, outcome, error, delay in results:
        if outcome is Outcome.retry and claimed.attempts < max_attempts:
            await store.retry_later(
                conn, user_id=claimed.user_id, row_id=claimed.id, error=error, delay=delay
            )
        elif outcome in (Outcome.retry, Outcome.failed):
            await store.mark_failed(conn, user_id=claimed.user_id, row_id=claimed.id, error=error)


async def next_due(conn: asyncpg.Connection) -> float | None:
    """Seconds until the next pending push is due (None: nothing pending)."""
    # Not greatest(0, …) in SQL: GREATEST skips NULLs, so "nothing pending" came back as 0
    # and an idle sender looked again every 10 ms.
    value = await store.next_due(conn)
    return None if value is None else max(0.0, value)
