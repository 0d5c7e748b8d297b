"""The answer path of a work conversation: which permission question a person's message
answers, and handing an answer to its session. The rest of what a person writes to a session
is the work mode's (`parley.modes.work`). Knows nothing of HTTP."""

from __future__ import annotations

from parley.auth import Caller
from parley.config import Settings
from parley.db import Database
from parley.models import MessageKind
from parley.runs import questions
from parley.work import store
from parley.work.manager import WorkManager


async def _answers(
    db: Database, *, user_id: str, conversation_id: int, text: str, reply_to: int | None
) -> int | None:
    """The permission question this message answers, if any: the one it replies to, or,
    replying to nothing, the question the live session waits on now, when the message
    plainly decides (yes, no, allow...). Anything else is a prompt for Claude Code."""
    if reply_to is not None:
        target = await store.get_message(
            db, user_id=user_id, conversation_id=conversation_id, message_id=reply_to
        )
        is_question = target.kind == MessageKind.question.value
        return reply_to if is_question and questions.is_permission(target.meta) else None
    if questions.parse_decision(text) is None:
        return None
    current = await questions.current_permission(
        db, user_id=user_id, conversation_id=conversation_id
    )
    return current.id if current is not None else None


async def answer(
    db: Database,
    manager: WorkManager,
    settings: Settings,
    *,
    caller: Caller,
    question_id: int,
    text: str | None = None,
    decision: questions.Decision | None = None,
    device: int | None = None,
) -> questions.Answered:
    """Answer one of the person's questions (`POST /questions/{id}/answer`, a reply in the
    conversation): stored exactly once, then, for a permission request, handed to its
    session, live here, live elsewhere or parked. `device`: the person's push subscription
    it was answered from (a notification's button), kept with the answer."""
    answered = await questions.answer(
        db,
        caller=caller,
        question_id=question_id,
        text=text,
        decision=decision,
        max_chars=settings.max_message_chars,
        device=device,
    )
    if answered.decision is not None:
        await manager.answered(
            user_id=caller.user_id,
            conversation_id=answered.question.conversation_id,
            question_id=question_id,
            decision=answered.decision,
        )
    return answered
