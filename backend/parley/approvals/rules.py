"""A person's approval rules as a service: every rule is checked (its pattern parsed, its
scope complete) before anything is written, so a bad one changes nothing."""

from __future__ import annotations

from typing import Any

from parley.approvals import patterns, store
from parley.approvals.store import Rule
from parley.auth import USER_ID_RE
from parley.db import Database
from parley.errors import InvalidInput
from parley.models import APPROVAL_DECISIONS, APPROVAL_SCOPES, APPROVAL_TIMEOUTS, MAX_BIGINT
from parley.text import clean

MAX_RULES = 500  # a person's, all scopes together
MAX_NOTE = 500
MAX_MACHINE = 100


def _invalid(message: str, field: str) -> InvalidInput:
    return InvalidInput(message, details=[{"field": field}])


def _fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Each field given in its stored form, or a 422 naming the one that is wrong."""
    out = dict(fields)
    if "pattern" in out:
        out["pattern"] = patterns.parse(out["pattern"]).text
    for name, allowed in (
        ("decision", APPROVAL_DECISIONS),
        ("scope", APPROVAL_SCOPES),
        ("on_timeout", APPROVAL_TIMEOUTS),
    ):
        if name in out and out[name] not in allowed:
            raise _invalid(f"{name} is one of {', '.join(allowed)}", name)
    if "note" in out:
        out["note"] = " ".join(str(out["note"]).split())[:MAX_NOTE]
    return out


def _scoped(rule: dict[str, Any]) -> dict[str, Any]:
    """A whole rule whose scope names what it needs: an agent's name, a machine's, or
    nothing for every agent."""
    scope, value = rule["scope"], rule["scope_value"]
    if scope == "all":
        if value:
            raise _invalid("A rule for every agent names no agent or machine", "scope_value")
    elif scope == "agent":
        if not isinstance(value, str) or not USER_ID_RE.fullmatch(value):
            raise _invalid("scope_value is the agent's name (letters, digits, _.@-)", "scope_value")
    else:
        rule["scope_value"] = clean(
            value,
            field="scope_value",
            label="The machine's name",
            max_chars=MAX_MACHINE,
            one_line=True,
        )
    return rule


async def list_rules(db: Database, *, user_id: str) -> list[Rule]:
    return await store.list_rules(db, user_id=user_id)


async def add(
    db: Database,
    *,
    user_id: str,
    decision: str,
    pattern: str,
    scope: str = "all",
    scope_value: str = "",
    on_timeout: str = "deny",
    note: str = "",
    source: str = "hand",
    question_id: int | None = None,
) -> Rule:
    fields = _scoped(
        _fields(
            {
                "decision": decision,
                "pattern": pattern,
                "scope": scope,
                "scope_value": scope_value,
                "on_timeout": on_timeout,
                "note": note,
            }
        )
    )
    return await store.create(
        db, user_id=user_id, most=MAX_RULES, source=source, question_id=question_id, **fields
    )


async def change(db: Database, *, user_id: str, rule_id: int, changes: dict[str, Any]) -> Rule:
    """Change some of a rule's fields; the rule as changed must be whole (a scope `agent`
    names its agent) or nothing is written."""
    if not 1 <= rule_id <= MAX_BIGINT:
        raise store.not_found(rule_id)
    given = _fields(changes)
    if given.get("scope") == "all" and "scope_value" not in given:
        given["scope_value"] = ""  # widened to every agent: it names none any more

    def whole(merged: dict[str, Any]) -> None:
        _scoped(merged)

    return await store.update(db, user_id=user_id, rule_id=rule_id, check=whole, changes=given)


async def remove(db: Database, *, user_id: str, rule_id: int) -> None:
    if not 1 <= rule_id <= MAX_BIGINT:
        raise store.not_found(rule_id)
    await store.delete(db, user_id=user_id, rule_id=rule_id)
