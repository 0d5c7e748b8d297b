"""Writing into conversations that have no assistant turn (inbox, run, delegation), by a
person or an agent, and answering the questions asked there.

Who may write what is `rules.check_post`'s decision, taken on facts read under the locks the
write then holds, so a refusal stores nothing. Locks are taken in one order by every writer
here: the conversation row (`parley_writable`), the delegation row of a thread, question
rows, then (inside `parley_append_message`) the conversation's advisory lock, then run rows.
The chat turn takes the conversation row before the advisory lock too, so the two never
deadlock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import asyncpg

from parley import audit
from parley.auth import Caller
from parley.conversations import check_id, list_messages
from parley.db import Database
from parley.errors import Forbidden, InvalidInput, NotFound, ParleyError
from parley.messages import store as message_store
from parley.messages.store import StoredMessage
from parley.models import MAX_BIGINT, MAX_TIMEOUT
from parley.questions import store as questions
from parley.realtime.hub import Hub
from parley.runs import rules
from parley.runs import store as runs
from parley.runs import store_delegations as delegations
from parley.runs.lifecycle import acknowledge
from parley.runs.rules import Conflict
from parley.runs.store_delegations import DelegationRecord
from parley.text import clean

# What may be posted directly; the other kinds are written by the tools that own them.
POSTABLE = frozenset({"message", "question", "answer", "status"})


def clean_text(text: str, *, max_chars: int, field: str = "text") -> str:
    return clean(text, field=field, max_chars=max_chars, too_large=True)


@dataclass(slots=True)
class Posted:
    message: StoredMessage
    answered: int | None  # the question this message answered, if any


# What `parley_writable` / `parley_post_message` (migration 0010) raise, as service errors.
_REFUSALS: dict[str, Callable[[str], ParleyError]] = {
    "PT404": lambda m: NotFound(m),
    "PT409": lambda m: Conflict(m, code="not_writable"),
    "PT410": lambda m: Conflict(m, code="run_finished"),
    "PT403": lambda m: Forbidden(m, code="not_your_run"),
    "PT422": lambda m: InvalidInput(m, details=[{"field": "reply_to"}]),
}


def refusal(exc: asyncpg.PostgresError) -> Exception:
    make = _REFUSALS.get(getattr(exc, "sqlstate", "") or "")
    return make(str(getattr(exc, "message", exc))) if make else exc


@dataclass(slots=True)
class Target:
    """A conversation locked for a write: its run (if a run's or a thread's) and thread."""

    conversation_id: int
    run_id: int | None
    run_agent: str | None
    thread: DelegationRecord | None


async def lock_target(conn: asyncpg.Connection, *, caller: Caller, conversation_id: int) -> Target:
    """Lock the conversation for a write (inside the caller's transaction) after checking
    that it takes writes at all (`parley_writable`: not another person's, not a chat, not a
    finished run or closed thread); then the delegation row, if it is a thread. What this
    caller may write there is `rules.check_post`'s to say."""
    check_id(conversation_id)
    try:
        run_id = await runs.writable(conn, user_id=caller.user_id, conversation_id=conversation_id)
    except asyncpg.PostgresError as exc:
        raise refusal(exc) from exc
    run_agent: str | None = None
    if run_id is not None:
        run_agent = await runs.agent_of(conn, user_id=caller.user_id, run_id=run_id)
    thread = await delegations.lock(conn, user_id=caller.user_id, thread_id=conversation_id)
    return Target(conversation_id, run_id, run_agent, thread)


async def _check_agent_answer(
    conn: asyncpg.Connection, *, caller: Caller, target: Target, reply_to: int | None
) -> None:
    """An agent's `answer` must take the child's open question it replies to, or nothing
    is stored (the question row stays locked until the answer commits)."""
    if reply_to is None:
        raise InvalidInput(
            "An answer replies to a question: give reply_to", details=[{"field": "reply_to"}]
        )
    question = await questions.lock_for_answer(
        conn,
        user_id=caller.user_id,
        conversation_id=target.conversation_id,
        question_id=reply_to,
    )
    rules.check_answer(
        caller,
        thread=target.thread.facts if target.thread is not None else None,
        asked_by=question["asked_by"] if question is not None else None,
        status=question["status"] if question is not None else None,
    )


async def post_message(
    db: Database,
    *,
    caller: Caller,
    conversation_id: int,
    text: str,
    max_chars: int,
    kind: str = "message",
    reply_to: int | None = None,
    timeout_s: float | None = None,
    default_timeout: float = 3600.0,
    meta: dict[str, Any] | None = None,
) -> Posted:
    """`post` of a text not yet checked, for the writers outside the modes (a question an
    agent asks, an escalation): the conversations' own writers are the modes, which check
    the text against their limits first (`parley.modes`)."""
    return await post(
        db,
        caller=caller,
        conversation_id=conversation_id,
        content=clean_text(text, max_chars=max_chars),
        kind=kind,
        reply_to=reply_to,
        timeout_s=timeout_s,
        default_timeout=default_timeout,
        meta=meta,
    )


async def post(
    db: Database,
    *,
    caller: Caller,
    conversation_id: int,
    content: str,
    kind: str = "message",
    reply_to: int | None = None,
    timeout_s: float | None = None,
    default_timeout: float = 3600.0,
    meta: dict[str, Any] | None = None,
) -> Posted:
    """Store a message as the caller (`role=agent, author=<agent>` or `role=user`);
    `content` is already cleaned (`clean_text`).

    A question (agents only) opens a wait that the person answers. A person's message
    answers the question it replies to, or, if it replies to nothing, the oldest open
    question in the conversation; it is then stored as `kind=answer` with `reply_to` set.
    One statement (`parley_post_message`): every check, the message, the question's state,
    the run's and the read position commit together or not at all.
    """
    if kind not in POSTABLE:
        raise InvalidInput(f"kind must be one of {sorted(POSTABLE)}", details=[{"field": "kind"}])
    if kind == "question" and caller.agent is None:
        raise InvalidInput(
            "Only agents ask questions; a person's message is kind=message",
            details=[{"field": "kind"}],
        )
    if timeout_s is not None and (kind != "question" or not 0 < timeout_s <= MAX_TIMEOUT):
        raise InvalidInput(
            f"timeout_s is for questions, 0 < timeout_s <= {int(MAX_TIMEOUT)}",
            details=[{"field": "timeout_s"}],
        )
    check_ids(conversation_id, reply_to)
    async with db.transaction() as conn:
        return await post_in(
            conn,
            caller=caller,
            conversation_id=conversation_id,
            content=content,
            kind=kind,
            reply_to=reply_to,
            timeout_s=timeout_s or default_timeout,
            meta=meta,
        )


def check_ids(conversation_id: int, reply_to: int | None) -> None:
    """Ids out of range are refused before any statement (a 404, a 422)."""
    check_id(conversation_id)
    if reply_to is not None and not 1 <= reply_to <= MAX_BIGINT:
        raise InvalidInput("reply_to is not a message here", details=[{"field": "reply_to"}])


async def post_in(
    conn: asyncpg.Connection,
    *,
    caller: Caller,
    conversation_id: int,
    content: str,
    kind: str,
    reply_to: int | None = None,
    timeout_s: float = 3600.0,
    meta: dict[str, Any] | None = None,
) -> Posted:
    """`post_message` inside the caller's transaction, `content` already cleaned."""
    target = await lock_target(conn, caller=caller, conversation_id=conversation_id)
    thread = target.thread
    rules.check_post(
        caller,
        run_agent=target.run_agent,
        thread=thread.facts if thread is not None else None,
        kind=kind,
    )
    if caller.agent is not None and kind == "answer":
        await _check_agent_answer(conn, caller=caller, target=target, reply_to=reply_to)
    if thread is not None and caller.agent == thread.child_agent:
        await acknowledge(conn, thread)
    try:
        message, answered = await message_store.post(
            conn,
            caller.user_id,
            caller.agent,
            conversation_id,
            content,
            kind,
            reply_to,
            timeout_s,
            meta,
        )
    except asyncpg.PostgresError as exc:
        raise refusal(exc) from exc
    if answered is not None:  # a person's reply, or a parent agent answering its child
        await audit.record_questions(
            conn,
            user_id=caller.user_id,
            question_ids=[answered],
            decided_by="person" if caller.agent is None else "agent",
            decider=caller.agent,
            decision="answer",
            answer=content,
        )
    return Posted(message, answered)


async def wait_for_messages(
    db: Database,
    hub: Hub,
    *,
    user_id: str,
    conversation_id: int,
    after: int,
    wait_s: float,
    limit: int = 100,
) -> list[StoredMessage]:
    """Messages after `after` at once if there are any, else the first ones to arrive (from
    any instance) within `wait_s` seconds, else an empty list. 404 if not the user's."""
    found = await list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )
    if found or wait_s <= 0:
        return found
    watcher = await hub.subscribe(conversation_id, after, user_id=user_id)
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                while (await watcher.get())[0] != "message":
                    pass
    finally:
        hub.unsubscribe(watcher)
    return await list_messages(
        db, user_id=user_id, conversation_id=conversation_id, after=after, limit=limit
    )


async def post_question(
    conn: asyncpg.Connection,
    *,
    caller: Caller,
    conversation_id: int,
    content: str,
    timeout_s: float,
    reply_to: int | None = None,
    meta: dict[str, Any] | None = None,
) -> StoredMessage:
    """Where an agent's question goes (`questions.ask.Place`): posted by the rules and the
    statement of any post here, which open its `questions` row and put its run in
    `waiting_input`."""
    posted = await post_in(
        conn,
        caller=caller,
        conversation_id=conversation_id,
        content=content,
        kind="question",
        reply_to=reply_to,
        timeout_s=timeout_s,
        meta=meta,
    )
    return posted.message
