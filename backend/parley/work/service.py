"""What the API and the MCP tools do with a work conversation. Knows nothing of HTTP."""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from parley import conversations
from parley.auth import Caller
from parley.config import Settings
from parley.conversations import StoredMessage
from parley.db import Database
from parley.errors import InvalidInput
from parley.events import Emit
from parley.models import ConversationMode, MessageKind, Role
from parley.questions import answer as answering
from parley.questions.words import Decision
from parley.schemas import IDLE_WORK
from parley.text import clean_message
from parley.work import store
from parley.work.manager import WorkFailed, WorkManager
from parley.work.session import Prompt, SessionFailed


@dataclass
class WorkReply:
    conversation_id: int
    response: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    def body(self) -> dict[str, Any]:
        return {
            "conversation_id": self.conversation_id,
            "response": self.response,
            "tool_calls": self.tool_calls,
        }


@dataclass
class Sent:
    message: StoredMessage
    prompt: Prompt | None  # None when the message answered a permission question

    @property
    def answered(self) -> int | None:
        """The permission question this message answered, if it answered one."""
        return self.message.reply_to if self.prompt is None else None


async def is_work(db: Database, *, user_id: str, conversation_id: int) -> bool:
    mode = await conversations.mode_of(db, user_id=user_id, conversation_id=conversation_id)
    return mode == ConversationMode.work


async def require_work(db: Database, *, user_id: str, conversation_id: int) -> None:
    if not await is_work(db, user_id=user_id, conversation_id=conversation_id):
        raise InvalidInput(
            f"Conversation {conversation_id} is not a work conversation",
            code="not_a_work_conversation",
        )


async def _answers(
    db: Database, *, user_id: str, conversation_id: int, text: str, reply_to: int | None
) -> int | None:
    """The permission question this message answers, if any (`questions.answer`)."""
    return await answering.answered_by(
        db, user_id=user_id, conversation_id=conversation_id, text=text, reply_to=reply_to
    )


async def answer(
    db: Database,
    manager: WorkManager,
    settings: Settings,
    *,
    caller: Caller,
    question_id: int,
    text: str | None = None,
    decision: Decision | None = None,
    device: int | None = None,
) -> answering.Answered:
    """`questions.answer.answer` with this instance's sessions taking a decision."""
    return await answering.answer(
        db,
        caller=caller,
        question_id=question_id,
        text=text,
        decision=decision,
        max_chars=settings.max_message_chars,
        device=device,
        sessions=manager,
    )


async def send_to_work(
    db: Database,
    manager: WorkManager,
    settings: Settings,
    *,
    user_id: str,
    conversation_id: int,
    text: str,
    reply_to: int | None = None,
    workspace: str | None = None,
) -> Sent:
    """`send` for a caller that does not know the conversation's mode yet (the MCP tools):
    a conversation that is not a work one is refused, nothing stored."""
    cleaned = clean_message(text, max_chars=settings.max_message_chars)
    await require_work(db, user_id=user_id, conversation_id=conversation_id)
    return await send(
        db,
        manager,
        settings,
        user_id=user_id,
        conversation_id=conversation_id,
        text=cleaned,
        reply_to=reply_to,
        workspace=workspace,
    )


async def send(
    db: Database,
    manager: WorkManager,
    settings: Settings,
    *,
    user_id: str,
    conversation_id: int,
    text: str,
    reply_to: int | None = None,
    workspace: str | None = None,
) -> Sent:
    """Store the person's message in their work conversation and hand it to the session
    without waiting: a prompt for Claude Code (starting or resuming the session), or the
    answer to a permission question. Refusals (limit, work mode off) happen before anything
    is stored."""
    cleaned = clean_message(text, max_chars=settings.max_message_chars)
    question_id = await _answers(
        db, user_id=user_id, conversation_id=conversation_id, text=cleaned, reply_to=reply_to
    )
    if question_id is not None:
        answered = await answer(
            db, manager, settings, caller=Caller(user_id), question_id=question_id, text=cleaned
        )
        return Sent(answered.answer, None)
    await manager.admit(user_id=user_id, conversation_id=conversation_id)
    message = await store.store(
        db,
        conversation_id=conversation_id,
        user_id=user_id,
        content=cleaned,
        meta={},
        kind=MessageKind.message,
        role=Role.user,
        reply_to=reply_to,
    )
    # Named like a chat: after the person's first message (a no-op for any later one).
    await conversations.title_untitled(
        db,
        user_id=user_id,
        conversation_id=conversation_id,
        first_message_id=message.id,
        text=cleaned,
    )
    prompt = await manager.submit(
        user_id=user_id,
        conversation_id=conversation_id,
        text=cleaned,
        after=message.id,
        workspace=workspace,
    )
    return Sent(message, prompt)


async def state(db: Database, *, user_id: str, conversation_id: int) -> dict[str, Any] | None:
    """The session as the API shows it; a work conversation never started is idle, any
    other conversation has none (None)."""
    if not await is_work(db, user_id=user_id, conversation_id=conversation_id):
        return None
    found = await states(db, user_id=user_id, conversation_ids=[conversation_id])
    return found.get(conversation_id) or idle_state()


def idle_state() -> dict[str, Any]:
    return dict(IDLE_WORK)


async def states(
    db: Database, *, user_id: str, conversation_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """The sessions of these work conversations, by id; one never started is idle."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            """SELECT conversation_id, status, cost_usd, run_id, workspace, session_id, pending
            FROM work_sessions WHERE user_id = $1 AND conversation_id = ANY($2::bigint[])""",
            user_id,
            conversation_ids,
        )
    found = {
        row["conversation_id"]: {
            "status": row["status"],
            "cost_usd": row["cost_usd"],
            "run_id": row["run_id"],
            "workspace": row["workspace"],
            "pending_question_id": None
            if (row["pending"] or {}).get("closed")
            else (row["pending"] or {}).get("question_id"),
        }
        for row in rows
    }
    return {i: found.get(i) or idle_state() for i in conversation_ids}


async def end(db: Database, manager: WorkManager, *, user_id: str, conversation_id: int) -> bool:
    await require_work(db, user_id=user_id, conversation_id=conversation_id)
    return await manager.end(user_id=user_id, conversation_id=conversation_id)


def prompt_work(
    sent: Sent, manager: WorkManager, *, user_id: str, conversation_id: int
) -> Callable[[Emit, asyncio.Event], Awaitable[WorkReply]]:
    """A sent prompt as the turn runner runs it: the session's events go to the runner's
    `emit` (so a streaming caller sees them), Stop interrupts the prompt, and the result is
    the prompt's final text."""

    async def run(emit: Emit, stop: asyncio.Event) -> WorkReply:
        prompt = sent.prompt
        if prompt is None:
            return WorkReply(conversation_id, "Answer recorded.")
        prompt.attach(emit)
        stopped = asyncio.create_task(stop.wait())
        try:
            waits: set[asyncio.Future[Any]] = {prompt.future, stopped}
            done, _ = await asyncio.wait(waits, return_when=FIRST_COMPLETED)
            if prompt.future not in done:
                await manager.stop(user_id, conversation_id)
            result = await asyncio.shield(prompt.future)
        except SessionFailed as failure:
            raise WorkFailed(str(failure), conversation_id=conversation_id) from failure
        finally:
            stopped.cancel()
        if result.is_error:
            detail = "; ".join(result.errors or []) or result.result or result.subtype
            raise WorkFailed(
                f"Claude Code could not finish this prompt: {detail}",
                conversation_id=conversation_id,
            )
        if result.stop_reason == "tool_deferred":
            return WorkReply(
                conversation_id,
                "Claude Code is waiting for your answer to its permission question.",
                prompt.tool_calls,
            )
        return WorkReply(conversation_id, result.result or "", prompt.tool_calls)

    return run
