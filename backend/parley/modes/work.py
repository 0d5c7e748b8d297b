"""`work`: a Claude Code session. A person's message is a prompt for the session (or the
answer to its permission question), run by the turn runner like a chat turn; Stop interrupts
the prompt, End stops the session's process tree, and the conversation shows the session's
state (`WorkState`)."""

from __future__ import annotations

from typing import Any, ClassVar

from parley import events
from parley.auth import Caller
from parley.errors import Forbidden, InvalidInput
from parley.models import ConversationMode
from parley.modes.base import Mode, Posted, Turn
from parley.schemas import message_json
from parley.work import service

# What a person posts into a work conversation: a prompt, or an answer to the session's
# permission question (agents reach a session through the send_to_work_session tool).
POSTABLE = frozenset({"message", "answer"})


class WorkMode(Mode):
    mode: ClassVar[ConversationMode] = ConversationMode.work
    person_creates: ClassVar[bool] = True
    turn_checks_conversation: ClassVar[bool] = True

    async def turn(
        self, *, user_id: str, conversation_id: int | None, text: str | None, retry: bool
    ) -> Turn:
        """The prompt's result is the reply (`response`); the session outlives the request,
        so at shutdown the stream ends at once and the manager parks the session."""
        if retry or text is None or conversation_id is None:
            raise InvalidInput(
                "Retry is for chat turns; in a work conversation send the prompt again",
                code="nothing_to_retry",
                status=409,
            )
        p = self.parts
        sent = await service.send(
            p.db, p.work, p.settings, user_id=user_id, conversation_id=conversation_id, text=text
        )
        return Turn(
            conversation_id,
            service.prompt_work(sent, p.work, user_id=user_id, conversation_id=conversation_id),
            first=[(events.MESSAGE, message_json(sent.message))],
            finishes_at_shutdown=False,
        )

    async def post(
        self,
        *,
        caller: Caller,
        conversation_id: int,
        text: str,
        kind: str,
        reply_to: int | None,
        timeout_s: float | None,
    ) -> Posted:
        """The person's prompt or answer, handed to the session without waiting; what
        follows arrives on the conversation's event stream."""
        if caller.agent is not None:
            raise Forbidden(
                "A work conversation takes the person's own messages; an agent reaches the"
                " session with the send_to_work_session tool",
                code="agent_not_allowed",
            )
        if kind not in POSTABLE or timeout_s is not None:
            raise InvalidInput(
                "A work conversation takes kind=message or kind=answer, without timeout_s",
                details=[{"field": "kind"}],
            )
        p = self.parts
        sent = await service.send(
            p.db,
            p.work,
            p.settings,
            user_id=caller.user_id,
            conversation_id=conversation_id,
            text=text,
            reply_to=reply_to,
        )
        if sent.prompt is not None:  # nobody waits for it: its failure is in the conversation
            sent.prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())
        return Posted(sent.message, sent.answered)

    async def stop(self, *, user_id: str, conversation_id: int) -> bool:
        """Interrupt the prompt Claude Code is working on (the session lives on)."""
        return await self.parts.work.stop(user_id, conversation_id)

    async def end(self, *, user_id: str, conversation_id: int) -> bool:
        """Kill the session's process tree and complete its run; writing again resumes it."""
        return await self.parts.work.end(user_id=user_id, conversation_id=conversation_id)

    async def forget(self, *, user_id: str, conversation_id: int) -> None:
        # Until the session is through (its messages stored): the conversation goes next.
        await self.parts.work.end(user_id=user_id, conversation_id=conversation_id, wait=True)

    async def states(self, *, user_id: str, conversation_ids: list[int]) -> dict[int, Any]:
        return await service.states(
            self.parts.db, user_id=user_id, conversation_ids=conversation_ids
        )
