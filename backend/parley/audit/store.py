"""The SQL of the audit trail: an event added (from the values given, or read from the
question it decides, inside the deciding transaction), a person's events read newest first,
and old events deleted.

A person's events are always read with their id in the statement (on a cluster, one node's
rows). The admin's reading of everyone's and the retention sweep's search for old rows are
the only statements that do not name a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.messages import store as messages

MAX_ASKED = 2000  # characters of a question kept
MAX_ANSWER = 2000  # characters of an answer kept
MAX_INPUT = 4000  # characters of a tool call's input (as JSON) kept whole

COLUMNS = (
    "id, user_id, kind, asked, tool, tool_input, agent, machine, question_id, conversation_id,"
    " decision, answer, decided_by, decider, rule_id, rule_pattern, via, device_id, session_id,"
    " asked_at, decided_at, waited_ms"
)
_INSERT_COLUMNS = (
    "user_id, kind, asked, tool, tool_input, agent, machine, question_id, conversation_id,"
    " decision, answer, decided_by, decider, rule_id, rule_pattern, via, device_id, session_id,"
    " asked_at, waited_ms"
)


@dataclass(slots=True)
class AuditEvent:
    id: int
    user_id: str
    kind: str
    asked: str
    tool: str | None
    tool_input: Any
    agent: str | None
    machine: str | None
    question_id: int | None
    conversation_id: int | None
    decision: str
    answer: str | None
    decided_by: str
    decider: str | None
    rule_id: int | None
    rule_pattern: str | None
    via: str
    device_id: int | None
    session_id: int | None
    asked_at: datetime
    decided_at: datetime
    waited_ms: int


# An input too large is kept as the start of its JSON text, marked as cut.
_TRIMMED_INPUT = f"""CASE WHEN {{input}} IS NULL OR length(({{input}})::text) <= {MAX_INPUT}
THEN {{input}}
ELSE jsonb_build_object('truncated', true, 'preview', left(({{input}})::text, {MAX_INPUT})) END"""

_ADD = f"""
INSERT INTO audit_events ({_INSERT_COLUMNS})
VALUES ($1, $2, left($3, {MAX_ASKED}), $4, {_TRIMMED_INPUT.format(input="$5::jsonb")}, $6, $7,
        $8, $9, $10, left($11, {MAX_ANSWER}), $12, $13, $14, $15, $16, $17, $18,
        coalesce($19, now()),
        greatest(0, (extract(epoch FROM now() - coalesce($19, now())) * 1000))::bigint)
"""

# The decision on a stored question: what was asked, by whom and when, read from the
# question's own row and message in the same statement (the deciding transaction's).
_FROM_QUESTIONS = f"""
INSERT INTO audit_events ({_INSERT_COLUMNS})
SELECT q.user_id,
       CASE WHEN m.meta ? 'permission' THEN 'permission' ELSE 'question' END,
       left(m.content, {MAX_ASKED}),
       m.meta -> 'permission' ->> 'tool',
       {_TRIMMED_INPUT.format(input="(m.meta -> 'permission' -> 'input')")},
       q.asked_by,
       coalesce(m.meta -> 'permission' ->> 'machine', m.meta ->> 'machine'),
       q.message_id, q.conversation_id,
       coalesce($3, m.meta ->> 'answer', 'answer'),
       left($4, {MAX_ANSWER}), $5, $6, $7, $8, $9, $10, $11,
       m.created_at,
       greatest(0, (extract(epoch FROM now() - m.created_at) * 1000))::bigint
FROM questions q
{messages.joined("m", user="q.user_id", message_id="q.message_id")}
WHERE q.user_id = $1 AND q.message_id = ANY($2::bigint[])
ORDER BY q.message_id
"""


async def add(conn: asyncpg.Connection, **values: Any) -> None:
    """One event from the values given (a rule's decision on a call never asked)."""
    await conn.execute(
        _ADD,
        values["user_id"],
        values["kind"],
        values.get("asked") or "",
        values.get("tool"),
        values.get("tool_input"),
        values.get("agent"),
        values.get("machine"),
        values.get("question_id"),
        values.get("conversation_id"),
        values["decision"],
        values.get("answer"),
        values["decided_by"],
        values.get("decider"),
        values.get("rule_id"),
        values.get("rule_pattern"),
        values["via"],
        values.get("device_id"),
        values.get("session_id"),
        values.get("asked_at"),
    )


async def add_for_questions(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    question_ids: list[int],
    decision: str | None,
    answer: str | None,
    decided_by: str,
    decider: str | None,
    rule_id: int | None,
    rule_pattern: str | None,
    via: str,
    device_id: int | None,
    session_id: int | None,
) -> None:
    """One event per question named, what was asked read from the question itself.
    `decision` None: the decision kept on a permission question's message, else `answer`."""
    await conn.execute(
        _FROM_QUESTIONS,
        user_id,
        question_ids,
        decision,
        answer,
        decided_by,
        decider,
        rule_id,
        rule_pattern,
        via,
        device_id,
        session_id,
    )


def _filters(
    *,
    user_id: str | None,
    agent: str | None,
    decision: str | None,
    since: datetime | None,
    before: int | None,
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    for column, value in (("user_id", user_id), ("agent", agent), ("decision", decision)):
        if value is not None:
            args.append(value)
            clauses.append(f"{column} = ${len(args)}")
    if since is not None:
        args.append(since)
        clauses.append(f"decided_at >= ${len(args)}")
    if before is not None:
        args.append(before)
        clauses.append(f"id < ${len(args)}")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


async def events(
    conn: asyncpg.Connection,
    *,
    user_id: str | None,
    agent: str | None,
    decision: str | None,
    since: datetime | None,
    before: int | None,
    limit: int,
) -> list[AuditEvent]:
    """Events newest first (by id), below the cursor `before`; `user_id` None: everyone's
    (an admin's reading)."""
    where, args = _filters(
        user_id=user_id, agent=agent, decision=decision, since=since, before=before
    )
    args.append(limit)
    rows = await conn.fetch(
        f"SELECT {COLUMNS} FROM audit_events{where} ORDER BY id DESC LIMIT ${len(args)}", *args
    )
    return [AuditEvent(**dict(row)) for row in rows]


# The people with events older than the cutoff (everyone's: each node answers from its index).
_OLD_PEOPLE = """
SELECT DISTINCT user_id FROM audit_events WHERE decided_at < $1 LIMIT 200
"""
# One batch of one person's old events.
_DELETE_OLD = """
DELETE FROM audit_events WHERE user_id = $1 AND id IN (
    SELECT id FROM audit_events WHERE user_id = $1 AND decided_at < $2 ORDER BY id LIMIT $3)
"""


async def old_people(conn: asyncpg.Connection, *, cutoff: datetime) -> list[str]:
    return [row["user_id"] for row in await conn.fetch(_OLD_PEOPLE, cutoff)]


async def delete_old(
    conn: asyncpg.Connection, *, user_id: str, cutoff: datetime, batch: int
) -> int:
    """Delete at most `batch` of the person's events decided before `cutoff`: how many."""
    status = await conn.execute(_DELETE_OLD, user_id, cutoff, batch)
    return int(status.split()[-1])
