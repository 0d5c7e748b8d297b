"""The person's answer: one `answer` for every way they give it (`POST .../answer`, a
notification's button, which is that same route, a plain reply in a work conversation).

Only the person answers, and only once: the answer takes the question's row lock, so of two
answers at once the second finds it answered and stores nothing. A permission request is
answered by a decision as well as by text; the decision is then handed to the caller's work
sessions (`Sessions`), live here, live elsewhere or parked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import asyncpg

from parley import audit
from parley.auth import Caller
from parley.conversations import store as conversation_store
from parley.db import Database
from parley.errors import Forbidden, InvalidInput
from parley.messages.store import StoredMessage
from parley.models import MAX_BIGINT, MessageKind, Role
from parley.questions import store
from parley.questions.status import QuestionStatus, refusal_for
from parley.questions.words import DECISION_TEXT, Decision, parse_decision
from parley.text import clean


@dataclass(slots=True)
class Answered:
    question: StoredMessage
    answer: StoredMessage
    decision: Decision | None  # for a permission question


# A write made in the answer's own transaction (`answer(also=...)`).
Also = Callable[[asyncpg.Connection], Awaitable[None]]


class Sessions(Protocol):
    """Who takes a permission decision once it is stored (`work.manager.WorkManager`)."""

    async def answered(
        self, *, user_id: str, conversation_id: int, question_id: int, decision: Decision
    ) -> None: ...


async def answer(
    db: Database,
    *,
    caller: Caller,
    question_id: int,
    text: str | None,
    decision: Decision | None,
    max_chars: int,
    device: int | None = None,
    sessions: Sessions | None = None,
    via: str | None = None,
    session: int | None = None,
    also: Also | None = None,
) -> Answered:
    """Answer one of the person's questions, exactly once, by text or (a permission
    question) by a decision, then hand a decision to `sessions`. An agent's token never
    answers for the person (403); a question already answered, timed out or closed refuses
    (409) and nothing is stored. `device`: the person's own push subscription it was
    answered from (a notification's button), kept with the answer. `via` (`rest`, `web`,
    `push_action`, `email_link`, `mcp`) and `session` (the web session) say for the audit
    trail how it came; None: the request's channel (`audit.channel`). `also`: a write that
    stands or falls with the answer, made in its transaction once the question is found
    open (the rule of "Always allow this")."""
    if caller.agent is not None:
        raise Forbidden(
            "Only the person answers their questions; an agent's token cannot",
            code="agent_not_allowed",
        )
    if (text is None) == (decision is None):
        raise InvalidInput("Give either text or decision", details=[{"field": "text"}])
    if text is not None:
        text = clean(text, field="text", max_chars=max_chars, too_large=True)
    if not 1 <= question_id <= MAX_BIGINT:
        raise store.not_found(question_id)
    user_id = caller.user_id
    async with db.transaction() as conn:
        found = await store.locate(conn, user_id=user_id, question_id=question_id)
        if found is None:
            raise store.not_found(question_id)
        if found["status"] != QuestionStatus.open:  # it never moves back: no lock needed
            raise refusal_for(QuestionStatus(found["status"]), question_id)
        conversation_id = found["conversation_id"]
        if found["mode"] == "work":
            await store.lock_conversation(conn, user_id=user_id, conversation_id=conversation_id)
        else:  # the checks (and lock) of every other write there: a finished run refuses
            await store.lock_writable(conn, user_id=user_id, conversation_id=conversation_id)
        row = await store.lock_open(conn, user_id=user_id, question_id=question_id)
        assert row is not None
        status = QuestionStatus(row["status"])
        if status is QuestionStatus.open and row["overdue"]:
            status = QuestionStatus.timed_out  # closed as such by the next read or sweep
        if status is not QuestionStatus.open:
            raise refusal_for(status, question_id)
        question = store.message(row, "q_")
        assert question is not None
        chosen = _decision(question, text, decision)
        if also is not None:
            await also(conn)
        reply = await store.record_answer(
            conn,
            user_id=user_id,
            conversation_id=conversation_id,
            question_id=question_id,
            role=Role.user,
            author=user_id,
            content=text or DECISION_TEXT[chosen],  # type: ignore[index]
            meta=(
                ({"decision": chosen.value} if chosen else {})
                | ({"device": device} if device is not None else {})
            )
            or None,
            decision=chosen.value if chosen is not None else None,
        )
        await conversation_store.read_up_to(
            conn, user_id=user_id, conversation_id=conversation_id, message_id=reply.id
        )
        await audit.record_questions(
            conn,
            user_id=user_id,
            question_ids=[question_id],
            decided_by="person",
            via=via,
            decision=chosen.value if chosen is not None else "answer",
            answer=text,
            device_id=device,
            session_id=session,
        )
    # Only a work session's question has a session to hand it to (an agent's permission
    # request in the inbox is read by the agent that waits on it).
    if chosen is not None and sessions is not None and found["mode"] == "work":
        await sessions.answered(
            user_id=user_id,
            conversation_id=conversation_id,
            question_id=question_id,
            decision=chosen,
        )
    return Answered(question=question, answer=reply, decision=chosen)


def _decision(
    question: StoredMessage, text: str | None, decision: Decision | None
) -> Decision | None:
    """What the answer decides: a permission question takes a decision (given, or read from
    the words); any other question takes text only."""
    if store.is_permission(question.meta):
        chosen = decision or parse_decision(text or "")
        if chosen is None:
            raise InvalidInput(
                'Answer a permission question with "allow", "allow for this session" or'
                ' "deny" (or decision: allow | allow_session | deny)',
                details=[{"field": "text"}],
            )
        return chosen
    if decision is not None:
        raise InvalidInput(
            "decision answers a permission question; answer this one with text",
            details=[{"field": "decision"}],
        )
    return None


async def answered_by(
    db: Database, *, user_id: str, conversation_id: int, text: str, reply_to: int | None
) -> int | None:
    """The permission question a person's message in a work conversation answers, if any:
    the one it replies to, or, replying to nothing, the question the live session waits on
    now, when the message plainly decides (yes, no, allow...). Anything else is a prompt
    for Claude Code."""
    if reply_to is not None:
        target = await store.reply_target(
            db, user_id=user_id, conversation_id=conversation_id, message_id=reply_to
        )
        is_question = target.kind == MessageKind.question.value
        return reply_to if is_question and store.is_permission(target.meta) else None
    if parse_decision(text) is None:
        return None
    current = await store.current_permission(db, user_id=user_id, conversation_id=conversation_id)
    return current.id if current is not None else None
