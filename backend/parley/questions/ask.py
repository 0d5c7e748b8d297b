"""Asking the person, and the asker's side of the wait: one `ask` for an agent's question
(`ask_user`), a child agent's (`ask_parent`) and a work session's permission request (asked
from its hooks), then reading, waiting for and withdrawing it.

Waiting is reading the question's row, then sleeping until a `question` event for it (from
any instance) or the deadline, then reading again: a restart or another instance loses
nothing, and an agent that reconnects simply waits again for the same question id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Protocol

import asyncpg

from parley import audit
from parley.auth import Caller
from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput
from parley.messages.store import StoredMessage
from parley.models import MAX_BIGINT, MAX_TIMEOUT
from parley.questions import store
from parley.questions.escalation import Escalation
from parley.questions.expiry import expire_overdue
from parley.questions.status import QuestionStatus
from parley.questions.store import QuestionState
from parley.questions.words import Decision
from parley.realtime.waits import Waits
from parley.text import clean


class Place(Protocol):
    """Where a question goes, inside the asking transaction: its message and its open
    `questions` row, written by the rules of that conversation (an agent's post in
    `runs.messages`, a work session's permission request in `store.open_permission`)."""

    def __call__(
        self, conn: asyncpg.Connection, *, conversation_id: int, content: str, timeout_s: float
    ) -> Awaitable[StoredMessage]: ...


async def ask(
    db: Database,
    *,
    user_id: str,
    conversation_id: int,
    place: Place,
    text: str,
    max_chars: int | None,
    timeout_s: float | None,
    default_timeout: float,
    escalation: Escalation,
) -> StoredMessage:
    """Store a question and what comes of it unanswered (`escalation`, checked by
    `escalation.check` before anything was made), together; the asker then waits
    (`wait_for_answer`). `max_chars` None: the asker's own words, already bounded, as a
    permission request's are."""
    content = (
        text
        if max_chars is None
        else clean(text, field="text", max_chars=max_chars, too_large=True)
    )
    if timeout_s is not None and not 0 < timeout_s <= MAX_TIMEOUT:
        raise InvalidInput(
            f"timeout_s is for questions, 0 < timeout_s <= {int(MAX_TIMEOUT)}",
            details=[{"field": "timeout_s"}],
        )
    async with db.transaction() as conn:
        question = await place(
            conn,
            conversation_id=conversation_id,
            content=content,
            timeout_s=timeout_s or default_timeout,
        )
        if escalation.stored:
            await store.set_escalation(
                conn,
                user_id=user_id,
                question_id=question.id,
                on_timeout=escalation.on_timeout.value,
                remind_after=escalation.remind_after,
            )
    return question


@retry_on_reconnect
async def get_question(db: Database, *, caller: Caller, question_id: int) -> QuestionState:
    """A person sees every question of theirs; an agent only the questions it asked. A
    question read past its deadline is closed (or decided) first."""
    if not 1 <= question_id <= MAX_BIGINT:
        raise store.not_found(question_id)
    async with db.connection() as conn:
        row = await store.read(conn, user_id=caller.user_id, question_id=question_id)
        if row is not None and row["status"] == "open" and row["seconds_left"] <= 0:
            await expire_overdue(conn, question_id, user_id=caller.user_id)
            row = await store.read(conn, user_id=caller.user_id, question_id=question_id)
    if row is None or (caller.agent is not None and row["asked_by"] != caller.agent):
        raise store.not_found(question_id)
    return store.state(row)


async def wait_for_answer(
    db: Database, waits: Waits, *, caller: Caller, question_id: int, wait_s: float
) -> QuestionState:
    """Return once the question is answered or timed out, or after `wait_s` seconds with it
    still open (`status == "open"`: ask again with the same id)."""
    if wait_s < 0:
        raise InvalidInput("wait must not be negative", details=[{"field": "wait"}])
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        with waits.watch(("question", question_id)) as woken:
            state = await get_question(db, caller=caller, question_id=question_id)
            left = deadline - loop.time()
            if state.status != "open" or left <= 0:
                return state
            # Wake for the question's own deadline too (a hair after it, so it is past).
            await asyncio.wait({woken}, timeout=min(left, state.seconds_left + 0.01))


def decision_of(state: QuestionState) -> Decision | None:
    """The decision an answered permission question carries (None while it is open, or
    when it closed unanswered)."""
    if state.status != QuestionStatus.answered:
        return None
    answer = str((state.question.meta or {}).get("answer"))
    return Decision(answer) if answer in Decision.__members__ else None


async def withdraw(db: Database, *, caller: Caller, question_id: int) -> QuestionState:
    """The agent that asked takes its question back (its client cancelled the wait): the
    question closes, nobody can answer it any more, and its run stops waiting on it. A
    question no longer open stays as it is; someone else's is 404."""
    state = await get_question(db, caller=caller, question_id=question_id)
    if state.status != QuestionStatus.open:
        return state
    async with db.transaction() as conn:  # the conversation first, as every writer locks it
        await store.lock_conversation(
            conn, user_id=caller.user_id, conversation_id=state.question.conversation_id
        )
        status = await store.lock_status(conn, user_id=caller.user_id, question_id=question_id)
        if status == QuestionStatus.open:
            await store.close(conn, caller.user_id, question_id, QuestionStatus.closed)
            await audit.record_questions(
                conn,
                user_id=caller.user_id,
                question_ids=[question_id],
                decided_by="agent",
                decider=caller.agent,
                decision="withdrawn",
            )
    return await get_question(db, caller=caller, question_id=question_id)
