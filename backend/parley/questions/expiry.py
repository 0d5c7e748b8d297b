"""Questions past their deadline: answered with their default (`on_timeout` deny or allow),
else closed as timed out, each exactly once whichever instance (a read, the sweeper) gets
there first."""

from __future__ import annotations

import asyncpg

from parley import audit
from parley.models import Role
from parley.questions import store, store_deadlines
from parley.questions.escalation import OnTimeout
from parley.questions.words import DECISION_TEXT, Decision

TIMEOUT_AUTHOR = "parley:timeout"


async def expire_overdue(
    conn: asyncpg.Connection, question_id: int | None = None, *, user_id: str | None = None
) -> None:
    """Close the overdue questions of `user_id` (`question_id` only, when given), or of
    everyone: person by person."""
    await decide_overdue(conn, question_id, user_id=user_id)
    people = [user_id] if user_id is not None else await store_deadlines.overdue_people(conn)
    for person in people:
        async with conn.transaction():  # each one closed is in the audit trail, or neither
            closed = await store_deadlines.expire(conn, user_id=person, question_id=question_id)
            await audit.record_questions(
                conn,
                user_id=person,
                question_ids=closed,
                decided_by="timeout_default",
                via="timeout",
                decision="timed_out",
            )


async def decide_overdue(
    conn: asyncpg.Connection, question_id: int | None = None, *, user_id: str | None = None
) -> None:
    """Answer the overdue questions that asked for a default (`deny` or `allow`) with it,
    each exactly once: the conversation is locked first (as every answer does), then the
    question, skipped when another instance holds it, and only a still-open one moves."""
    overdue = await store_deadlines.overdue_with_default(
        conn, user_id=user_id, question_id=question_id
    )
    for due in overdue:
        person = due["user_id"]
        async with conn.transaction():
            await store.lock_conversation(
                conn, user_id=person, conversation_id=due["conversation_id"]
            )
            row = await store_deadlines.lock_overdue(
                conn, user_id=person, question_id=due["message_id"]
            )
            if row is None:
                continue  # answered meanwhile, or another instance is deciding it
            question = store.message(row, "q_")
            assert question is not None
            allow = row["on_timeout"] == OnTimeout.allow
            chosen = Decision.allow if allow else Decision.deny
            permission = store.is_permission(question.meta)
            await store.record_answer(
                conn,
                user_id=person,
                conversation_id=due["conversation_id"],
                question_id=question.id,
                role=Role.system,
                author=TIMEOUT_AUTHOR,
                content=(DECISION_TEXT[chosen] if permission else ("yes" if allow else "no")),
                meta={"decision": chosen.value, "by": "timeout"}
                if permission
                else {"by": "timeout"},
                decision=chosen.value if permission else None,
            )
            await audit.record_questions(
                conn,
                user_id=person,
                question_ids=[question.id],
                decided_by="timeout_default",
                via="timeout",
                decision=chosen.value if permission else "answer",
                answer=None if permission else ("yes" if allow else "no"),
            )
