"""The push outbox: rows written by triggers (migration 0049) in the transaction of the event
they announce, claimed by the senders of every instance, each row by one of them.

A claim is a lease (`lease_until`), taken with `FOR UPDATE SKIP LOCKED`: two instances never
take the same row, and a row whose sender died mid-send is taken again once its lease
lapses. A closing push waits while its device's opening push is still pending, so a device
never gets them in the wrong order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import asyncpg


class Outcome(StrEnum):
    sent = "sent"
    retry = "retry"  # 429 or 5xx or no answer: again later, up to the bound
    gone = "gone"  # 404/410: the subscription is dead; it is dropped
    failed = "failed"  # refused for good (another 4xx, a host no longer allowed)


@dataclass(slots=True)
class Claimed:
    id: int
    subscription_id: int
    user_id: str
    kind: str
    ref: int
    conversation_id: int | None
    attempts: int
    endpoint: str
    p256dh: str
    auth: str
    created_at: datetime
    # What the notification shows: the question's (or message's) text and author, its
    # permission request, its state; or the failed run's agent and error.
    content: str | None
    author: str | None
    meta: dict[str, Any] | None
    question_status: str | None
    run_agent: str | None
    run_error: str | None


LEASE_SECONDS = 60.0

_CLAIM = """
WITH due AS (
    SELECT o.id FROM push_outbox o
    WHERE o.status = 'pending' AND o.next_at <= now()
      AND (o.lease_until IS NULL OR o.lease_until < now())
      AND (o.kind <> 'question_closed' OR NOT EXISTS (
          SELECT 1 FROM push_outbox p WHERE p.subscription_id = o.subscription_id
            AND p.ref = o.ref AND p.kind IN ('question', 'reminder') AND p.status = 'pending'))
    ORDER BY o.next_at, o.id LIMIT $1 FOR UPDATE SKIP LOCKED
), taken AS (
    UPDATE push_outbox o SET lease_until = now() + make_interval(secs => $2),
        attempts = o.attempts + 1
    FROM due WHERE o.id = due.id
    RETURNING o.*
)
SELECT t.id, t.subscription_id, t.user_id, t.kind, t.ref, t.conversation_id, t.attempts,
       t.created_at, s.endpoint, s.p256dh, s.auth,
       m.content, m.author, m.meta, q.status AS question_status,
       r.agent AS run_agent, r.error AS run_error
FROM taken t JOIN push_subscriptions s ON s.id = t.subscription_id
LEFT JOIN messages m ON t.kind <> 'run_failed' AND m.id = t.ref
LEFT JOIN questions q ON t.kind <> 'run_failed' AND q.message_id = t.ref
LEFT JOIN agent_runs r ON t.kind = 'run_failed' AND r.id = t.ref
ORDER BY t.id
"""


async def claim(conn: asyncpg.Connection, *, limit: int, max_attempts: int) -> list[Claimed]:
    # A row whose sender kept dying before recording the outcome is given up too.
    await conn.execute(
        "UPDATE push_outbox SET status = 'failed', last_error = 'its sender never finished'"
        " WHERE status = 'pending' AND attempts >= $1 AND lease_until < now()",
        max_attempts,
    )
    rows = await conn.fetch(_CLAIM, limit, LEASE_SECONDS)
    return [Claimed(**dict(row)) for row in rows]


async def renew(conn: asyncpg.Connection, ids: list[int]) -> None:
    """Extend the lease on rows this instance claimed and is still sending."""
    await conn.execute(
        "UPDATE push_outbox SET lease_until = now() + make_interval(secs => $2)"
        " WHERE id = ANY($1::bigint[]) AND status = 'pending'",
        ids,
        LEASE_SECONDS,
    )


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
    sent = [c.id for c, outcome, _e, _d in results if outcome is Outcome.sent]
    devices = sorted(
        {c.subscription_id for c, outcome, _e, _d in results if outcome is Outcome.sent}
    )
    if sent:
        await conn.execute(
            "UPDATE push_outbox SET status = 'sent', sent_at = now(), lease_until = NULL"
            " WHERE id = ANY($1::bigint[])",
            sent,
        )
        await conn.execute(
            "UPDATE push_subscriptions SET last_sent_at = now() WHERE id = ANY($1::bigint[])",
            devices,
        )
    gone = sorted({c.subscription_id for c, outcome, _e, _d in results if outcome is Outcome.gone})
    if gone:  # its outbox rows go with it (ON DELETE CASCADE)
        await conn.execute("DELETE FROM push_subscriptions WHERE id = ANY($1::bigint[])", gone)
    for claimed, outcome, error, delay in results:
        if outcome is Outcome.retry and claimed.attempts < max_attempts:
            await conn.execute(
                "UPDATE push_outbox SET lease_until = NULL, last_error = $2,"
                " next_at = now() + make_interval(secs => $3) WHERE id = $1",
                claimed.id,
                error,
                delay,
            )
        elif outcome in (Outcome.retry, Outcome.failed):
            await conn.execute(
                "UPDATE push_outbox SET status = 'failed', lease_until = NULL, last_error = $2"
                " WHERE id = $1",
                claimed.id,
                error,
            )


async def next_due(conn: asyncpg.Connection) -> float | None:
    """Seconds until the next pending push is due (None: nothing pending)."""
    # Not greatest(0, …) in SQL: GREATEST skips NULLs, so "nothing pending" came back as 0
    # and an idle sender looked again every 10 ms.
    value: float | None = await conn.fetchval(
        "SELECT extract(epoch FROM min(greatest(next_at, coalesce(lease_until, next_at)))"
        " - now())::float8 FROM push_outbox WHERE status = 'pending'"
    )
    return None if value is None else max(0.0, value)
