"""The SQL of approval rules: a person's rules, read, written and counted.

A rule is always read and written with its person's id in the statement (the row is one
person's on a cluster, and another person's id is never found: a 404, not a 403).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound, ParleyError

_COLUMNS = (
    "id, decision, pattern, scope, scope_value, on_timeout, note, source, question_id,"
    " created_at, updated_at"
)
EDITABLE = ("decision", "pattern", "scope", "scope_value", "on_timeout", "note")


@dataclass(slots=True)
class Rule:
    id: int
    decision: str
    pattern: str
    scope: str
    scope_value: str
    on_timeout: str
    note: str
    source: str
    question_id: int | None
    created_at: datetime
    updated_at: datetime


def not_found(rule_id: int) -> NotFound:
    return NotFound(f"Approval rule {rule_id} not found", rule_id=rule_id)


def exists(pattern: str) -> ParleyError:
    return ParleyError(
        f"A rule for {pattern!r} in that scope exists already: edit it instead",
        code="rule_exists",
        status=409,
    )


def _rule(row: Any) -> Rule:
    return Rule(**dict(row))


@retry_on_reconnect
async def list_rules(db: Database, *, user_id: str) -> list[Rule]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {_COLUMNS} FROM approval_rules WHERE user_id = $1 ORDER BY id", user_id
        )
    return [_rule(row) for row in rows]


@retry_on_reconnect
async def rules_for(
    db: Database, *, user_id: str, agent: str | None, machine: str | None
) -> list[Rule]:
    """The rules that can apply to a call of this agent on this machine."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"""SELECT {_COLUMNS} FROM approval_rules WHERE user_id = $1 AND (scope = 'all'
            OR (scope = 'agent' AND scope_value = $2) OR (scope = 'machine' AND scope_value = $3))
            ORDER BY id""",
            user_id,
            agent,
            machine,
        )
    return [_rule(row) for row in rows]


async def create(db: Database, *, user_id: str, most: int, **fields: Any) -> Rule:
    """A new rule, unless the person has `most` already (422) or one for the same pattern
    in the same scope (409)."""
    async with db.transaction() as conn:
        await _lock_rules(conn, user_id=user_id)
        return await _insert(conn, user_id=user_id, most=most, fields=fields)


async def _lock_rules(conn: asyncpg.Connection, *, user_id: str) -> None:
    """Rules of one person are added one at a time (a transaction lock on the person), so a
    burst cannot pass the cap between its count and its insert."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('approval_rules:' || $1, 0))", user_id
    )


async def _insert(
    conn: asyncpg.Connection, *, user_id: str, most: int, fields: dict[str, Any]
) -> Rule:
    count = await conn.fetchval("SELECT count(*) FROM approval_rules WHERE user_id = $1", user_id)
    if count >= most:
        raise ParleyError(
            f"At most {most} approval rules: remove one first",
            code="too_many_rules",
            status=422,
        )
    names = list(fields)
    places = ", ".join(f"${i}" for i in range(2, len(names) + 2))
    try:
        row = await conn.fetchrow(
            f"""INSERT INTO approval_rules (user_id, {", ".join(names)})
            VALUES ($1, {places}) RETURNING {_COLUMNS}""",
            user_id,
            *fields.values(),
        )
    except asyncpg.UniqueViolationError:
        raise exists(fields["pattern"]) from None
    return _rule(row)


async def allow_everywhere(
    conn: asyncpg.Connection, *, user_id: str, pattern: str, most: int, **fields: Any
) -> Rule:
    """The person's rule allowing `pattern` for every agent, inside the caller's
    transaction: the one there is (made `allow` if it said otherwise: the person's newer
    word), else a new one with `fields` (past `most` rules: 422)."""
    await _lock_rules(conn, user_id=user_id)
    row = await conn.fetchrow(
        f"""SELECT {_COLUMNS} FROM approval_rules WHERE user_id = $1 AND pattern = $2
        AND scope = 'all' AND scope_value = '' FOR UPDATE""",
        user_id,
        pattern,
    )
    if row is None:
        return await _insert(
            conn,
            user_id=user_id,
            most=most,
            fields={**fields, "decision": "allow", "pattern": pattern, "scope": "all"},
        )
    if row["decision"] != "allow":
        row = await conn.fetchrow(
            f"""UPDATE approval_rules SET decision = 'allow', updated_at = now()
            WHERE user_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
            user_id,
            row["id"],
        )
    return _rule(row)


async def find(
    db: Database, *, user_id: str, pattern: str, scope: str, scope_value: str
) -> Rule | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"""SELECT {_COLUMNS} FROM approval_rules WHERE user_id = $1 AND pattern = $2
            AND scope = $3 AND scope_value = $4""",
            user_id,
            pattern,
            scope,
            scope_value,
        )
    return None if row is None else _rule(row)


async def update(
    db: Database, *, user_id: str, rule_id: int, check: Any, changes: dict[str, Any]
) -> Rule:
    """Change a rule: `check(merged)` sees the rule as it would be (and raises to refuse)
    before anything is written, under the row's lock."""
    async with db.transaction() as conn:
        row = await conn.fetchrow(
            f"SELECT {_COLUMNS} FROM approval_rules WHERE user_id = $1 AND id = $2 FOR UPDATE",
            user_id,
            rule_id,
        )
        if row is None:
            raise not_found(rule_id)
        merged = {**dict(row), **changes}
        check(merged)
        values = [merged[name] for name in EDITABLE]
        sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(EDITABLE, start=3))
        try:
            row = await conn.fetchrow(
                f"""UPDATE approval_rules SET {sets}, updated_at = now()
                WHERE user_id = $1 AND id = $2 RETURNING {_COLUMNS}""",
                user_id,
                rule_id,
                *values,
            )
        except asyncpg.UniqueViolationError:
            raise exists(merged["pattern"]) from None
    return _rule(row)


@retry_on_reconnect
async def delete(db: Database, *, user_id: str, rule_id: int) -> None:
    async with db.connection() as conn:
        gone = await conn.fetchval(
            "DELETE FROM approval_rules WHERE user_id = $1 AND id = $2 RETURNING id",
            user_id,
            rule_id,
        )
    if gone is None:
        raise not_found(rule_id)
