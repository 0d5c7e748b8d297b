"""The one store of Web Push: `push_subscriptions` (a person's devices), `push_outbox` (rows
the triggers of migration 0049 write, claimed and settled by the senders; `outbox` says how),
`notification_prefs` and `conversation_mutes` (what notifies the person), and `push_vapid`
(the deployment's signing key). Every statement names the owner's user id where the table
has one: on a Citus cluster that keeps it to the one node holding the person's rows. Each
function runs on the caller's connection, inside its transaction when it holds one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.messages import store as messages
from parley.models import NotificationPrefs, PushSubscription, columns, from_row

# -- the outbox -------------------------------------------------------------------------


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


async def due_people(conn: asyncpg.Connection, *, limit: int) -> list[str]:
    """Up to `limit` people with a push due and not leased."""
    return [row["user_id"] for row in await conn.fetch(_DUE_PEOPLE, limit)]


async def give_up(conn: asyncpg.Connection, *, user_id: str, max_attempts: int) -> None:
    await conn.execute(_GIVE_UP, max_attempts, user_id)


async def claim(
    conn: asyncpg.Connection, *, user_id: str, limit: int, lease_seconds: float
) -> list[Claimed]:
    """Up to `limit` of the person's due pushes, leased for `lease_seconds`."""
    rows = await conn.fetch(_CLAIM, limit, lease_seconds, user_id)
    return [Claimed(**dict(row)) for row in rows]


async def renew(
    conn: asyncpg.Connection, *, user_id: str, ids: list[int], lease_seconds: float
) -> None:
    """The lease of the person's pending rows `ids`, from now."""
    await conn.execute(
        "UPDATE push_outbox SET lease_until = now() + make_interval(secs => $2)"
        " WHERE user_id = $3 AND id = ANY($1::bigint[]) AND status = 'pending'",
        ids,
        lease_seconds,
        user_id,
    )


async def mark_sent(conn: asyncpg.Connection, *, user_id: str, ids: list[int]) -> None:
    await conn.execute(
        "UPDATE push_outbox SET status = 'sent', sent_at = now(), lease_until = NULL"
        " WHERE user_id = $2 AND id = ANY($1::bigint[])",
        ids,
        user_id,
    )


async def retry_later(
    conn: asyncpg.Connection, *, user_id: str, row_id: int, error: str | None, delay: float
) -> None:
    await conn.execute(
        "UPDATE push_outbox SET lease_until = NULL, last_error = $2,"
        " next_at = now() + make_interval(secs => $3) WHERE user_id = $4 AND id = $1",
        row_id,
        error,
        delay,
        user_id,
    )


async def mark_failed(
    conn: asyncpg.Connection, *, user_id: str, row_id: int, error: str | None
) -> None:
    await conn.execute(
        "UPDATE push_outbox SET status = 'failed', lease_until = NULL, last_error = $2"
        " WHERE user_id = $3 AND id = $1",
        row_id,
        error,
        user_id,
    )


async def next_due(conn: asyncpg.Connection) -> float | None:
    """Seconds until the next pending push is due, below zero when overdue; None if none
    is pending."""
    value = await conn.fetchval(
        "SELECT extract(epoch FROM min(greatest(next_at, coalesce(lease_until, next_at)))"
        " - now())::float8 FROM push_outbox WHERE status = 'pending'"
    )
    return None if value is None else float(value)


# -- subscriptions (devices) ------------------------------------------------------------


@dataclass(slots=True)
class Subscription:
    id: int
    endpoint: str
    label: str
    created_at: datetime
    last_sent_at: datetime | None


_SUBSCRIPTION = columns(PushSubscription, Subscription)


async def subscribe(
    conn: asyncpg.Connection, *, user_id: str, endpoint: str, p256dh: str, auth: str, label: str
) -> tuple[Subscription, bool]:
    """The device, added or with its keys (and a non-empty label) renewed; whether it is new."""
    row = await conn.fetchrow(
        f"""INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, label)
        VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (user_id, endpoint) DO UPDATE SET p256dh = EXCLUDED.p256dh,
            auth = EXCLUDED.auth,
            label = CASE WHEN EXCLUDED.label = '' THEN push_subscriptions.label
                         ELSE EXCLUDED.label END
        RETURNING {_SUBSCRIPTION}, xmax = 0 AS created""",
        user_id,
        endpoint,
        p256dh,
        auth,
        label,
    )
    return from_row(Subscription, row), bool(row["created"])


async def subscriptions_of(conn: asyncpg.Connection, *, user_id: str) -> list[Subscription]:
    rows = await conn.fetch(
        f"SELECT {_SUBSCRIPTION} FROM push_subscriptions WHERE user_id = $1 ORDER BY id", user_id
    )
    return [from_row(Subscription, row) for row in rows]


async def unsubscribe(conn: asyncpg.Connection, *, user_id: str, subscription_id: int) -> bool:
    """Whether the person had that device (its pending pushes go with it: CASCADE)."""
    gone = await conn.fetchval(
        "DELETE FROM push_subscriptions WHERE id = $1 AND user_id = $2 RETURNING id",
        subscription_id,
        user_id,
    )
    return gone is not None


async def owned_subscription(
    conn: asyncpg.Connection, *, user_id: str, subscription_id: int
) -> int | None:
    found = await conn.fetchval(
        "SELECT id FROM push_subscriptions WHERE id = $1 AND user_id = $2",
        subscription_id,
        user_id,
    )
    return None if found is None else int(found)


async def devices_sent(conn: asyncpg.Connection, *, user_id: str, ids: list[int]) -> None:
    await conn.execute(
        "UPDATE push_subscriptions SET last_sent_at = now()"
        " WHERE user_id = $2 AND id = ANY($1::bigint[])",
        ids,
        user_id,
    )


async def drop_devices(conn: asyncpg.Connection, *, user_id: str, ids: list[int]) -> None:
    """Devices whose push service said they are gone (their outbox rows go too: CASCADE)."""
    await conn.execute(
        "DELETE FROM push_subscriptions WHERE user_id = $2 AND id = ANY($1::bigint[])",
        ids,
        user_id,
    )


# -- what notifies the person -----------------------------------------------------------


@dataclass(slots=True)
class Preferences:
    question: bool
    run_failed: bool
    message: bool
    email_reminders: bool
    muted_conversations: list[int]


_PREFS = """
SELECT coalesce(p.question, true) AS question, coalesce(p.run_failed, true) AS run_failed,
       coalesce(p.message, false) AS message,
       coalesce(p.email_reminders, true) AS email_reminders,
       coalesce((SELECT array_agg(conversation_id ORDER BY conversation_id)
                 FROM conversation_mutes WHERE user_id = $1), '{}') AS muted
FROM (SELECT 1) one LEFT JOIN notification_prefs p ON p.user_id = $1
"""
# The columns a change may name (the table's, less its key).
_PREF_COLUMNS = frozenset(
    c.name
    for c in NotificationPrefs.__table__.columns  # type: ignore[attr-defined]
    if c.name != "user_id"
)


async def preferences(conn: asyncpg.Connection, *, user_id: str) -> Preferences:
    """The person's, with the defaults for what they never set."""
    row = await conn.fetchrow(_PREFS, user_id)
    return Preferences(
        question=row["question"],
        run_failed=row["run_failed"],
        message=row["message"],
        email_reminders=row["email_reminders"],
        muted_conversations=list(row["muted"]),
    )


async def set_preferences(
    conn: asyncpg.Connection, *, user_id: str, changes: dict[str, bool]
) -> None:
    """Sets the kinds named in `changes` (columns of `notification_prefs`; others keep theirs)."""
    unknown = set(changes) - _PREF_COLUMNS
    if unknown:
        raise ValueError(f"not a preference: {sorted(unknown)}")
    names = ", ".join(changes)
    values = ", ".join(f"${i + 2}" for i in range(len(changes)))
    updates = ", ".join(f"{k} = EXCLUDED.{k}" for k in changes)
    await conn.execute(
        f"INSERT INTO notification_prefs (user_id, {names}) VALUES ($1, {values})"
        f" ON CONFLICT (user_id) DO UPDATE SET {updates}",
        user_id,
        *changes.values(),
    )


async def conversation_owned(
    conn: asyncpg.Connection, *, user_id: str, conversation_id: int
) -> bool:
    """Whether the conversation is the person's (a mute names only one's own)."""
    found = await conn.fetchval(
        "SELECT 1 FROM conversations WHERE id = $1 AND user_id = $2", conversation_id, user_id
    )
    return found is not None


async def mute(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    await conn.execute(
        "INSERT INTO conversation_mutes (conversation_id, user_id) VALUES ($1, $2)"
        " ON CONFLICT DO NOTHING",
        conversation_id,
        user_id,
    )


async def unmute(conn: asyncpg.Connection, *, user_id: str, conversation_id: int) -> None:
    await conn.execute(
        "DELETE FROM conversation_mutes WHERE user_id = $2 AND conversation_id = $1",
        conversation_id,
        user_id,
    )


# -- the signing key --------------------------------------------------------------------


async def vapid_key(conn: asyncpg.Connection) -> str | None:
    """The deployment's stored private key (PEM), if one was made."""
    pem = await conn.fetchval("SELECT private_pem FROM push_vapid WHERE id = 1")
    return None if pem is None else str(pem)


async def offer_vapid_key(conn: asyncpg.Connection, *, pem: str) -> None:
    """Stores `pem` unless another instance stored its key first (read it back after)."""
    await conn.execute(
        "INSERT INTO push_vapid (id, private_pem) VALUES (1, $1) ON CONFLICT DO NOTHING", pem
    )
