"""Which of a person's rules decides a tool call, if any.

Claude Code's precedence: a matching deny beats a matching ask, which beats a matching
allow, whatever their scopes (a narrow allow cannot carve an exception out of a broad
deny). Among rules of the one decision that wins, the narrower scope (one agent, one
machine) is the one reported (its default on timeout applies), then the newest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from parley.approvals import patterns, store
from parley.approvals.store import Rule
from parley.db import Database
from parley.errors import InvalidInput

_RANK = {"deny": 0, "ask": 1, "allow": 2}


def choose(
    rules: Iterable[Rule],
    *,
    tool: str,
    tool_input: dict[str, Any],
    cwd: str,
    home: str | None = None,
) -> Rule | None:
    """The deciding rule among `rules` (already those of the caller's scope), or None."""
    found: list[Rule] = []
    for rule in rules:
        try:
            pattern = patterns.parse(rule.pattern)
        except InvalidInput:
            continue  # stored before a stricter parser: it decides nothing
        strict = rule.decision == "allow"  # allow reads a call strictly, deny and ask loosely
        if patterns.matches(
            pattern, tool=tool, tool_input=tool_input, cwd=cwd, home=home, strict=strict
        ):
            found.append(rule)
    if not found:
        return None
    return min(found, key=lambda r: (_RANK[r.decision], r.scope == "all", -r.id))


async def decide(
    db: Database,
    *,
    user_id: str,
    agent: str | None,
    machine: str | None,
    tool: str,
    tool_input: dict[str, Any],
    cwd: str,
    home: str | None = None,
) -> Rule | None:
    """The rule that decides this call of `agent` on `machine` for the person, or None
    (then whoever asks asks the person). `cwd` anchors relative path rules; `home` is the
    `~` of the machine the call runs on (None: home rules match nothing)."""
    rules = await store.rules_for(db, user_id=user_id, agent=agent, machine=machine)
    return choose(rules, tool=tool, tool_input=tool_input, cwd=cwd, home=home)


def reason(rule: Rule) -> str:
    """What Claude Code is told about a call a rule decided."""
    verb = {"allow": "Allowed", "deny": "Denied", "ask": "Asked about"}[rule.decision]
    return f"{verb} by the person's approval rule {rule.pattern} (rule {rule.id})"
