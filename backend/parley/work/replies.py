"""What a live work session does with each message Claude Code sends: a text delta goes out
live, the rest is stored and streamed as the conversation's messages (`events.outputs`), and a
prompt's result closes it: its cost, Claude Code's session id, the tool calls it ran, and the
call it deferred for the person's answer, if it did."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from claude_agent_sdk import ResultMessage, SystemMessage

from parley import events
from parley.db import Database
from parley.messages.store import StoredMessage
from parley.questions.store import close_unanswered
from parley.realtime.notifier import Notifier
from parley.schemas import message_json
from parley.work import permissions, store
from parley.work.events import CallLog, delta_text, outputs
from parley.work.prompts import Prompt
from parley.work.status import WorkStatus


def _defers(result: ResultMessage) -> bool:
    """The prompt stopped at a tool call waiting for the person's permission."""
    return result.stop_reason == "tool_deferred" and result.deferred_tool_use is not None


class Replies:
    """A session's messages as the conversation keeps them, and what its results leave
    behind for the session: Claude Code's session id and a deferred call."""

    def __init__(
        self,
        *,
        db: Database,
        notifier: Notifier,
        user_id: str,
        conversation_id: int,
        run_id: int,
        session_id: str | None,
        questions: dict[str, int],
        set_status: Callable[[WorkStatus], Awaitable[None]],
    ) -> None:
        self.db = db
        self.notifier = notifier
        self.user_id = user_id
        self.conversation_id = conversation_id
        self.run_id = run_id
        self.session_id = session_id
        self.questions = questions  # the question each tool call was asked as (`Asking`)
        self.set_status = set_status
        self.calls = CallLog()  # the tool calls since the last result
        self.deferred: dict[str, Any] | None = None  # a call parked for the person's answer

    async def handle(self, message: Any, prompt: Prompt | None) -> None:
        """One message from Claude Code, while `prompt` (if any) is being answered."""
        text = delta_text(message)
        if text is not None:
            if prompt is not None and prompt.listener is not None:
                prompt.listener(events.DELTA, {"text": text})  # the runner publishes it
            else:
                self.notifier.publish_live(self.conversation_id, events.DELTA, {"text": text})
            return
        if isinstance(message, SystemMessage) and message.subtype == "init":
            # Its id is kept from the turn's result on (`_on_result`), not from here: a session
            # ended this early may have no transcript yet to resume.
            return
        if isinstance(message, ResultMessage) and not _defers(message):
            # Idle before the result is stored: whoever sees the result sees the session free.
            await self.set_status(WorkStatus.idle)
        stopped, reported = (prompt.stopped, prompt.reported) if prompt else (False, False)
        # The result closes the prompt: it carries the tool calls the prompt ran.
        calls = self.calls.take() if isinstance(message, ResultMessage) else None
        if calls is not None and prompt is not None:
            prompt.tool_calls = calls
        for output in outputs(message, stopped=stopped, reported=reported):
            self.calls.add(output)
            meta = output.meta
            if meta["type"] in ("result", "error") and prompt and prompt.message_id is not None:
                meta = {**meta, "prompts": [prompt.message_id]}  # whose answer this is
            stored = await self.store(output.content, meta, error=output.error, tool_calls=calls)
            if prompt is not None:
                prompt.reported = prompt.reported or output.meta["type"] == "error"
                prompt.publish(events.MESSAGE, message_json(stored))
            if output.meta["type"] == "text":  # its text is stored: no longer in flight
                ended = {"message_id": stored.id}  # watchers hand the live text over to it
                self.notifier.publish_live(self.conversation_id, events.TURN_END, ended)
        if isinstance(message, ResultMessage):
            await self._on_result(message)

    async def _on_result(self, message: ResultMessage) -> None:
        self.notifier.publish_live(self.conversation_id, events.TURN_END, {})
        if message.total_cost_usd:
            await store.add_cost(
                self.db, self.user_id, self.conversation_id, message.total_cost_usd
            )
        if message.session_id and message.session_id != self.session_id:
            self.session_id = message.session_id
            await store.update_session(
                self.db, self.user_id, self.conversation_id, session_id=self.session_id
            )
        deferred = message.deferred_tool_use
        if not _defers(message) or deferred is None:
            # The prompt is over: whatever it asked and got no answer for takes none now.
            await close_unanswered(self.db, user_id=self.user_id, run_id=self.run_id)
        if _defers(message) and deferred is not None:
            question_id = self.questions.get(deferred.id)
            if question_id is None:  # deferred by a resume's hook: nobody was asked yet
                question = await permissions.ask(
                    self.db,
                    conversation_id=self.conversation_id,
                    user_id=self.user_id,
                    tool=deferred.name,
                    tool_input=deferred.input,
                    tool_use_id=deferred.id,
                )
                question_id = question.id
            self.deferred = {
                "question_id": question_id,
                "tool_use_id": deferred.id,
                "tool": deferred.name,
                "input": deferred.input,
                "session_id": self.session_id,
            }
            await close_unanswered(
                self.db, user_id=self.user_id, run_id=self.run_id, keep=[question_id]
            )

    async def store(
        self,
        content: str,
        meta: dict[str, Any],
        *,
        error: bool = False,
        tool_calls: list[dict[str, Any]] | None = None,
    ) -> StoredMessage:
        return await store.store(
            self.db,
            conversation_id=self.conversation_id,
            user_id=self.user_id,
            content=content,
            meta=meta,
            error=error,
            tool_calls=tool_calls,
        )
