"""The audit trail: every decision on a person's questions and permission requests, kept
for PARLEY_AUDIT_DAYS (specs/audit.md).

A decision that is a database write (an answer, a timeout's default, an expiry, a
withdrawal) is recorded in the transaction that makes it (`record_questions` with its
connection), so nothing decided is missing from the trail and nothing is in it that was
not decided. A rule's decision on a call nobody was asked about is recorded as it is made
(`record`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from parley.audit import store
from parley.audit.channel import current
from parley.audit.store import AuditEvent
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput
from parley.models import AUDIT_DECIDERS, AUDIT_DECISIONS, AUDIT_KINDS, AUDIT_VIAS, MAX_BIGINT

MAX_PAGE = 200
EXPORT_BATCH = 500
SWEEP_BATCH = 1000


def _check(value: str, allowed: tuple[str, ...], field: str) -> str:
    if value not in allowed:
        raise ValueError(f"audit {field} {value!r} is not one of {allowed}")
    return value


async def record(
    target: Database | asyncpg.Connection,
    *,
    user_id: str,
    kind: str,
    decision: str,
    decided_by: str,
    via: str,
    asked: str = "",
    tool: str | None = None,
    tool_input: dict[str, Any] | None = None,
    agent: str | None = None,
    machine: str | None = None,
    question_id: int | None = None,
    conversation_id: int | None = None,
    answer: str | None = None,
    decider: str | None = None,
    rule_id: int | None = None,
    rule_pattern: str | None = None,
    device_id: int | None = None,
    session_id: int | None = None,
    asked_at: datetime | None = None,
) -> None:
    """One decision from the values given: a connection (inside the deciding transaction)
    or the pool. `asked_at` None: asked as it was decided (a rule's, waited 0 ms)."""
    values = {
        "user_id": user_id,
        "kind": _check(kind, AUDIT_KINDS, "kind"),
        "decision": _check(decision, AUDIT_DECISIONS, "decision"),
        "decided_by": _check(decided_by, AUDIT_DECIDERS, "decided_by"),
        "via": _check(via, AUDIT_VIAS, "via"),
        "asked": asked,
        "tool": tool,
        "tool_input": tool_input,
        "agent": agent,
        "machine": machine,
        "question_id": question_id,
        "conversation_id": conversation_id,
        "answer": answer,
        "decider": decider,
        "rule_id": rule_id,
        "rule_pattern": rule_pattern,
        "device_id": device_id,
        "session_id": session_id,
        "asked_at": asked_at,
    }
    if isinstance(target, Database):
        async with target.connection() as conn:
            await store.add(conn, **values)
    else:
        await store.add(target, **values)


async def record_questions(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    question_ids: list[int],
    decided_by: str,
    via: str | None = None,
    decision: str | None = None,
    answer: str | None = None,
    decider: str | None = None,
    rule_id: int | None = None,
    rule_pattern: str | None = None,
    device_id: int | None = None,
    session_id: int | None = None,
) -> None:
    """The decision on stored questions, inside the transaction that decides them: what was
    asked, by which agent and when is read from each question. `via` None: the request's
    channel (`channel.current`), its web session and device with it. `decision` None: the
    decision kept on a permission question (else `answer`)."""
    if not question_ids:
        return
    if via is None:
        channel = current()
        via = channel.via
        session_id = session_id if session_id is not None else channel.session_id
        device_id = device_id if device_id is not None else channel.device_id
    await store.add_for_questions(
        conn,
        user_id=user_id,
        question_ids=question_ids,
        decision=None if decision is None else _check(decision, AUDIT_DECISIONS, "decision"),
        answer=answer,
        decided_by=_check(decided_by, AUDIT_DECIDERS, "decided_by"),
        decider=decider,
        rule_id=rule_id,
        rule_pattern=rule_pattern,
        via=_check(via, AUDIT_VIAS, "via"),
        device_id=device_id,
        session_id=session_id,
    )


@dataclass(slots=True)
class Page:
    events: list[AuditEvent]
    next_cursor: int | None  # the next (older) page's cursor, None at the end


def _filters(decision: str | None, since: datetime | None) -> None:
    if decision is not None and decision not in AUDIT_DECISIONS:
        raise InvalidInput(
            f"decision must be one of {', '.join(AUDIT_DECISIONS)}",
            details=[{"field": "decision"}],
        )
    if since is not None and since.tzinfo is None:
        raise InvalidInput(
            "since needs a time zone (e.g. 2026-01-31T12:00:00Z)", details=[{"field": "since"}]
        )


@retry_on_reconnect
async def trail(
    db: Database,
    *,
    user_id: str | None,
    agent: str | None = None,
    decision: str | None = None,
    since: datetime | None = None,
    cursor: int | None = None,
    limit: int = 50,
) -> Page:
    """A person's decisions newest first, a page at a time (`user_id` None: everyone's, for
    an admin). `cursor`: the events older than this one (a page's `next_cursor`)."""
    _filters(decision, since)
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidInput(f"limit must be 1 to {MAX_PAGE}", details=[{"field": "limit"}])
    if cursor is not None and not 1 <= cursor <= MAX_BIGINT:
        raise InvalidInput("cursor is an event id", details=[{"field": "cursor"}])
    async with db.connection() as conn:
        found = await store.events(
            conn,
            user_id=user_id,
            agent=agent,
            decision=decision,
            since=since,
            before=cursor,
            limit=limit + 1,
        )
    more = len(found) > limit
    found = found[:limit]
    return Page(found, found[-1].id if more else None)


async def export(
    db: Database,
    *,
    user_id: str | None,
    agent: str | None = None,
    decision: str | None = None,
    since: datetime | None = None,
) -> AsyncIterator[AuditEvent]:
    """Every matching decision, newest first, read a batch at a time (a long trail is never
    held whole)."""
    _filters(decision, since)
    before: int | None = None
    while True:
        async with db.connection() as conn:
            batch = await store.events(
                conn,
                user_id=user_id,
                agent=agent,
                decision=decision,
                since=since,
                before=before,
                limit=EXPORT_BATCH,
            )
        for event in batch:
            yield event
        if len(batch) < EXPORT_BATCH:
            return
        before = batch[-1].id


async def sweep(db: Database, *, days: float, batch: int = SWEEP_BATCH) -> int:
    """Delete the decisions older than `days`, person by person, a batch at a time (short
    transactions, however long the backlog): how many went."""
    cutoff = datetime.now(UTC) - timedelta(days=days)
    deleted = 0
    async with db.connection() as conn:
        people = await store.old_people(conn, cutoff=cutoff)
        for person in people:
            while True:
                gone = await store.delete_old(conn, user_id=person, cutoff=cutoff, batch=batch)
                deleted += gone
                if gone < batch:
                    break
    return deleted
