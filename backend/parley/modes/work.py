"""`work`: a Claude Code session. A person's message is a prompt for the session (or the
answer to its permission question), run by the turn runner like a chat turn; Stop interrupts
the prompt, End stops the session's process tree, and the conversation shows the session's
state (`WorkState`).

Every door a person writes to a session through comes here: `POST /chat` (a turn),
`POST .../messages` (without waiting) and the work-session MCP tools (`parley.tools`)."""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from parley import conversations, events
from parley.auth import Caller
from parley.chat.runner import TurnResult, Work
from parley.errors import Forbidden, InvalidInput
from parley.events import Emit
from parley.messages.store import StoredMessage
from parley.models import ConversationMode
from parley.modes.base import Mode, Posted, Turn
from parley.questions import answer as answering
from parley.schemas import message_json

if TYPE_CHECKING:  # the work package (and the Claude SDK) load only where sessions run
    from parley.work.prompts import Prompt

# What a person posts into a work conversation: a prompt, or an answer to the session's
# permission question (agents reach a session through the send_to_work_session tool).
POSTABLE = frozenset({"message", "answer"})


@dataclass(slots=True)
class Sent:
    """The person's message, stored, and the prompt it became (None when it answered the
    session's permission question)."""

    message: StoredMessage
    prompt: Prompt | None

    @property
    def answered(self) -> int | None:
        return self.message.reply_to if self.prompt is None else None

    def detach(self) -> None:
        """Nobody waits for the prompt here: its failure is in the conversation."""
        if self.prompt is not None:
            self.prompt.future.add_done_callback(lambda f: f.cancelled() or f.exception())


class WorkMode(Mode):
    mode: ClassVar[ConversationMode] = ConversationMode.work
    person_creates: ClassVar[bool] = True
    turn_checks_conversation: ClassVar[bool] = True

    async def turn(
        self,
        *,
        user_id: str,
        conversation_id: int | None,
        text: str | None,
        retry: bool,
        replaces: int | None = None,
    ) -> Turn:
        """The prompt's result is the reply (`response`); the session outlives the request,
        so at shutdown the stream ends at once and the manager parks the session."""
        if replaces is not None:
            raise self.no_branches(conversation_id)
        if retry or text is None or conversation_id is None:
            raise InvalidInput(
                "Retry is for chat turns; in a work conversation send the prompt again",
                code="nothing_to_retry",
                status=409,
            )
        sent = await self._send(user_id=user_id, conversation_id=conversation_id, text=text)
        return Turn(
            conversation_id,
            self._run(sent, user_id=user_id, conversation_id=conversation_id),
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
        sent = await self._send(
            user_id=caller.user_id,
            conversation_id=conversation_id,
            text=self.parts.limits.message(text),
            reply_to=reply_to,
        )
        sent.detach()
        return Posted(sent.message, sent.answered)

    async def start(
        self, *, user_id: str, prompt: str, title: str | None, workspace: str | None
    ) -> int:
        """A new work conversation, its session started on `prompt` (the start_work_session
        tool); the id of the conversation, where the session works on."""
        p = self.parts
        await p.sessions.admit(user_id=user_id, conversation_id=None)
        conversation_id = await conversations.create_conversation(
            p.db,
            user_id=user_id,
            mode=ConversationMode.work,
            title=title or conversations.title_from(prompt or "Work session"),
        )
        sent = await self._send(
            user_id=user_id,
            conversation_id=conversation_id,
            text=p.limits.message(prompt),
            workspace=workspace,
        )
        sent.detach()
        return conversation_id

    async def _send(
        self,
        *,
        user_id: str,
        conversation_id: int,
        text: str,
        reply_to: int | None = None,
        workspace: str | None = None,
    ) -> Sent:
        """Store the person's message (`text` already checked) and hand it to the session
        without waiting: the answer to its permission question, or a prompt for Claude Code
        (starting or resuming the session). Refusals (limit, work mode off) happen before
        anything is stored."""
        p = self.parts
        question_id = await answering.answered_by(
            p.db, user_id=user_id, conversation_id=conversation_id, text=text, reply_to=reply_to
        )
        if question_id is not None:
            answered = await answering.answer(
                p.db,
                caller=Caller(user_id),
                question_id=question_id,
                text=text,
                decision=None,
                max_chars=p.limits.message_chars,
                sessions=p.sessions,
            )
            return Sent(answered.answer, None)
        message, prompt = await p.sessions.prompt(
            user_id=user_id,
            conversation_id=conversation_id,
            text=text,
            reply_to=reply_to,
            workspace=workspace,
        )
        return Sent(message, prompt)

    def _run(self, sent: Sent, *, user_id: str, conversation_id: int) -> Work:
        """A sent prompt as the turn runner runs it: the session's events go to the runner's
        `emit` (so a streaming caller sees them), Stop interrupts the prompt, and the result
        is the prompt's final text."""
        from parley.work.manager import WorkFailed
        from parley.work.prompts import SessionFailed

        manager = self.parts.sessions

        async def run(emit: Emit, stop: asyncio.Event) -> TurnResult:
            prompt = sent.prompt
            if prompt is None:
                return TurnResult(conversation_id, "Answer recorded.")
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
                return TurnResult(
                    conversation_id,
                    "Claude Code is waiting for your answer to its permission question.",
                    prompt.tool_calls,
                )
            return TurnResult(conversation_id, result.result or "", prompt.tool_calls)

        return run

    async def stop(self, *, user_id: str, conversation_id: int) -> bool:
        """Interrupt the prompt Claude Code is working on (the session lives on)."""
        return await self.parts.sessions.stop(user_id, conversation_id)

    async def end(self, *, user_id: str, conversation_id: int) -> bool:
        """Kill the session's process tree and complete its run; writing again resumes it."""
        return await self.parts.sessions.end(user_id=user_id, conversation_id=conversation_id)

    async def forget(self, *, user_id: str, conversation_id: int) -> None:
        # Until the session is through (its messages stored): the conversation goes next.
        await self.parts.sessions.end(user_id=user_id, conversation_id=conversation_id, wait=True)

    async def states(self, *, user_id: str, conversation_ids: list[int]) -> dict[int, Any]:
        from parley.work import store

        return await store.states(self.parts.db, user_id=user_id, conversation_ids=conversation_ids)
