""" "Always allow this": a permission question answered allow, and a rule made from its call
so the same call is never asked about again.

The rule is the narrowest the syntax can say (the exact command, the one file, the host,
the MCP tool), for every agent; the person widens it in Account → Rules if they want. It is
made in the answer's own transaction: both are stored or neither is, so a refused "always"
(already answered, closed, pressed twice on two devices at once) leaves nothing behind, and
the rule is there before the waiting agent hears the answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from parley.approvals import patterns, rules, store
from parley.approvals.store import Rule
from parley.auth import Caller
from parley.db import Database
from parley.errors import Forbidden, InvalidInput
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
    device: int | None = None,
    via: str | None = None,
    session: int | None = None,
) -> Always:
    """`device`, `via` and `session` say for the audit trail how the answer came (a
    notification's button, an emailed link), as for any answer (`questions.answer`)."""
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
    tool_input = permission.get("input")
    narrow = patterns.narrowest(
        str(permission.get("tool", "")), tool_input if isinstance(tool_input, dict) else {}
    )
    pattern = patterns.parse(narrow).text  # as the rule is stored
    made: list[Rule] = []

    async def make_rule(conn: asyncpg.Connection) -> None:
        made.append(
            await store.allow_everywhere(
                conn,
                user_id=caller.user_id,
                pattern=pattern,
                most=rules.MAX_RULES,
                source="always",
                question_id=question_id,
            )
        )

    answered = await answering.answer(
        db,
        caller=caller,
        question_id=question_id,
        text=None,
        decision=Decision.allow,
        max_chars=max_chars,
        sessions=sessions,
        device=device,
        via=via,
        session=session,
        also=make_rule,
    )
    return Always(rule=made[0], answered=answered)
