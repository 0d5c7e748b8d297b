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
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import asyncpg

from parley.messages import store as messages


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

# Who has pushes due (each node answers from its partial index of pending rows).
_DUE_PEOPLE = """
SELECT DISTINCT user_id FROM push_outbox
WHERE status = 'pending' AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
LIMIT $1
"""
# A row whose sender kept dying before recording the outcome is given up.
_GIVE_UP = """
UPDATE push_outbox SET status = 'failed', last_error = 'its sender never finished'
WHERE user_id = $2 AND status = 'pending' AND attempts >= $1 AND lease_until < now()
"""
_CLAIM = f"""
WITH due AS (
    SELECT o.id FROM push_outbox o
    WHERE o.user_id = $3 AND o.status = 'pending' AND o.next_at <= now()
      AND (o.lease_until IS NULL OR o.lease_until < now())
      AND (o.kind <> 'question_closed' OR NOT EXISTS (
          SELECT 1 FROM push_outbox p WHERE p.user_id = $3
            AND p.subscription_id = o.subscription_id AND p.ref = o.ref
            AND p.kind IN ('question', 'reminder') AND p.status = 'pending'))
    ORDER BY o.next_at, o.id LIMIT $1 FOR UPDATE SKIP LOCKED
), taken AS (
    UPDATE push_outbox o SET lease_until = now() + make_interval(secs => $2),
        attempts = o.attempts + 1
    FROM due WHERE o.user_id = $3 AND o.id = due.id
    RETURNING o.*
)
SELECT t.id, t.subscription_id, t.user_id, t.kind, t.ref, t.conversation_id, t.attempts,
       t.created_at, s.endpoint, s.p256dh, s.auth,
       m.content, m.author, m.meta, q.status AS question_status,
       r.agent AS run_agent, r.error AS run_error
FROM taken t JOIN push_subscriptions s ON s.user_id = $3 AND s.id = t.subscription_id
{messages.joined("m", user="$3", message_id="t.ref", left=True)} AND t.kind <> 'run_failed'
LEFT JOIN questions q ON q.user_id = $3 AND t.kind <> 'run_failed' AND q.message_id = t.ref
LEFT JOIN agent_runs r ON r.user_id = $3 AND t.kind = 'run_failed' AND r.id = t.ref
ORDER BY t.id
"""


async def claim(conn: asyncpg.Connection, *, limit: int, max_attempts: int) -> list[Claimed]:
    """Up to `limit` due pushes, leased to this instance, person by person."""
    claimed: list[Claimed] = []
    for person in await conn.fetch(_DUE_PEOPLE, limit):
        if len(claimed) >= limit:
            break
        await conn.execute(_GIVE_UP, max_attempts, person["user_id"])
        rows = await conn.fetch(_CLAIM, limit - len(claimed), LEASE_SECONDS, person["user_id"])
        claimed += [Claimed(**dict(row)) for row in rows]
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
        await conn.execute(
            "UPDATE push_outbox SET lease_until = now() + make_interval(secs => $2)"
            " WHERE user_id = $3 AND id = ANY($1::bigint[]) AND status = 'pending'",
            ids,
            LEASE_SECONDS,
            user_id,
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
    sent = [(c.user_id, c.id) for c, outcome, _e, _d in results if outcome is Outcome.sent]
    for user_id, ids in _by_person(sent).items():
        await conn.execute(
            "UPDATE push_outbox SET status = 'sent', sent_at = now(), lease_until = NULL"
            " WHERE user_id = $2 AND id = ANY($1::bigint[])",
            ids,
            user_id,
        )
    devices = sorted(
        {
            (c.user_id, c.subscription_id)
            for c, outcome, _e, _d in results
            if outcome is Outcome.sent
        }
    )
    for user_id, ids in _by_person(devices).items():
        await conn.execute(
            "UPDATE push_subscriptions SET last_sent_at = now()"
            " WHERE user_id = $2 AND id = ANY($1::bigint[])",
            ids,
            user_id,
        )
    gone = sorted(
        {
            (c.user_id, c.subscription_id)
            for c, outcome, _e, _d in results
            if outcome is Outcome.gone
        }
    )
    for user_id, ids in _by_person(gone).items():  # their outbox rows go too (CASCADE)
        await conn.execute(
            "DELETE FROM push_subscriptions WHERE user_id = $2 AND id = ANY($1::bigint[])",
            ids,
            user_id,
        )
    for claimed, outcome, error, delay in results:
        if outcome is Outcome.retry and claimed.attempts < max_attempts:
            await conn.execute(
                "UPDATE push_outbox SET lease_until = NULL, last_error = $2,"
                " next_at = now() + make_interval(secs => $3) WHERE user_id = $4 AND id = $1",
                claimed.id,
                error,
                delay,
                claimed.user_id,
            )
        elif outcome in (Outcome.retry, Outcome.failed):
            await conn.execute(
                "UPDATE push_outbox SET status = 'failed', lease_until = NULL, last_error = $2"
                " WHERE user_id = $3 AND id = $1",
                claimed.id,
                error,
                claimed.user_id,
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
