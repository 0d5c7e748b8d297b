""" "Always allow this": a permission question answered allow, and a rule made from its call
so the same call is never asked about again.

The rule is the narrowest the syntax can say (the exact command, the one file, the host,
the MCP tool), for every agent; the person widens it in Account → Rules if they want. It is
made before the answer and taken back if the answer is refused (already answered, closed),
so a refused "always" leaves nothing behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from parley.approvals import patterns, rules, store
from parley.approvals.store import Rule
from parley.auth import Caller
from parley.db import Database
from parley.errors import Forbidden, InvalidInput, ParleyError
from parley.questions import answer as answering
from parley.questions.answer import Answered, Sessions
from parley.questions.ask import get_question
from parley.questions.words import Decision


@dataclass(slots=True)
class Always:
    rule: Rule
    answered: Answered


async def always_allow(
    db: Database,
    *,
    caller: Caller,
    question_id: int,
    max_chars: int,
    sessions: Sessions | None = None,
) -> Always:
    if caller.agent is not None:
        raise Forbidden(
            "Only the person makes rules; an agent's key cannot", code="agent_not_allowed"
        )
    state = await get_question(db, caller=caller, question_id=question_id)
    permission = (state.question.meta or {}).get("permission")
    if not isinstance(permission, dict):
        raise InvalidInput(
            "Only a permission question can be always allowed",
            code="not_a_permission",
            details=[{"field": "question_id"}],
        )
    pattern = patterns.narrowest(str(permission.get("tool", "")), permission.get("input") or {})
    user_id = caller.user_id
    made: Rule | None = None
    rule = await store.find(db, user_id=user_id, pattern=pattern, scope="all", scope_value="")
    if rule is None:
        try:
            rule = made = await rules.add(
                db,
                user_id=user_id,
                decision="allow",
                pattern=pattern,
                source="always",
                question_id=question_id,
            )
        except ParleyError as exc:
            if exc.code != "rule_exists":
                raise
            rule = await store.find(
                db, user_id=user_id, pattern=pattern, scope="all", scope_value=""
            )
            assert rule is not None
    try:
        answered = await answering.answer(
            db,
            caller=caller,
            question_id=question_id,
            text=None,
            decision=Decision.allow,
            max_chars=max_chars,
            sessions=sessions,
        )
    except ParleyError:
        if made is not None:
            await store.delete(db, user_id=user_id, rule_id=made.id)
        raise
    if rule.decision != "allow":  # the person's newer word: this call is allowed
        rule = await rules.change(
            db, user_id=user_id, rule_id=rule.id, changes={"decision": "allow"}
        )
    return Always(rule=rule, answered=answered)
