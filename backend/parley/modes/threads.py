"""The conversations no assistant or session answers: people and agents write into them with
`POST .../messages` or an agent's `post_message` tool (stored by `parley.runs.messages`), a
person's message answering the open question it replies to. They take no `POST /chat`, have
nothing to stop or end, and show no state beyond their messages (a run's and a thread's own
state are their own resources). Whether one still takes writes (a finished run, a closed
thread) is the database's check."""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from parley.auth import Caller
from parley.errors import InvalidInput
from parley.models import ConversationMode
from parley.modes.base import Mode, Posted
from parley.questions import answer as answering
from parley.questions import ask as asking
from parley.questions.escalation import Escalation
from parley.questions.status import AlreadyAnswered, QuestionClosed
from parley.questions.store import open_questions
from parley.runs import messages

# Questions a plain message tries before it is an ordinary message: each one it misses was
# answered or closed by someone else meanwhile, so only a burst of that size exhausts them.
_TRIES = 100


class ThreadMode(Mode):
    """What the inbox, a run's channel and a delegation thread share."""

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
        p = self.parts
        if kind == "question":  # an agent asking the person: the one way every question is asked
            return await self._ask(
                caller=caller,
                conversation_id=conversation_id,
                text=text,
                reply_to=reply_to,
                timeout_s=timeout_s,
            )
        return await messages.post(
            p.db,
            caller=caller,
            conversation_id=conversation_id,
            content=p.limits.posted(text),
            kind=kind,
            reply_to=reply_to,
            timeout_s=timeout_s,
            default_timeout=p.limits.question_timeout,
        )

    async def _ask(
        self,
        *,
        caller: Caller,
        conversation_id: int,
        text: str,
        reply_to: int | None,
        timeout_s: float | None,
    ) -> Posted:
        """`POST .../messages` with `kind=question`: `questions.ask`, as `ask_user` asks
        (with no escalation: the REST body has none to give)."""
        if caller.agent is None:
            raise InvalidInput(
                "Only agents ask questions; a person's message is kind=message",
                details=[{"field": "kind"}],
            )
        p = self.parts
        messages.check_ids(conversation_id, reply_to)
        asked = await asking.ask(
            p.db,
            user_id=caller.user_id,
            conversation_id=conversation_id,
            place=partial(messages.post_question, caller=caller, reply_to=reply_to),
            text=p.limits.posted(text),
            max_chars=None,
            timeout_s=timeout_s,
            default_timeout=p.limits.question_timeout,
            escalation=Escalation(),
        )
        return Posted(asked, None)


class InboxMode(ThreadMode):
    """One per person, made on first use: where agents write to them first."""

    mode: ClassVar[ConversationMode] = ConversationMode.inbox

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
        """A person's plain message (no `reply_to`) answers the oldest question the inbox
        shows open (its own and those waiting on the person elsewhere: `GET /questions`'s
        first), through the one `answer` every answer takes: the waiting agent or session
        gets it, a permission question reads a decision from the words or refuses (422),
        and of two messages at once each takes a different question or none (the row
        lock). With nothing open it is an ordinary message."""
        if caller.agent is None and kind == "message" and reply_to is None:
            answered = await self._answer_oldest(caller=caller, text=text)
            if answered is not None:
                return answered
        return await super().post(
            caller=caller,
            conversation_id=conversation_id,
            text=text,
            kind=kind,
            reply_to=reply_to,
            timeout_s=timeout_s,
        )

    async def _answer_oldest(self, *, caller: Caller, text: str) -> Posted | None:
        p = self.parts
        content = p.limits.posted(text)  # an empty or oversized text refuses before anything
        for _ in range(_TRIES):
            found = await open_questions(p.db, caller=caller, limit=1)
            if not found:
                return None
            question_id = found[0].question.id
            try:
                done = await answering.answer(
                    p.db,
                    caller=caller,
                    question_id=question_id,
                    text=content,
                    decision=None,
                    max_chars=p.limits.message_chars,
                    sessions=p.work,
                )
            except (AlreadyAnswered, QuestionClosed):
                continue  # taken (or closed) meanwhile: the next oldest, if any
            return Posted(done.answer, question_id)
        return None


class RunMode(ThreadMode):
    """The channel of one agent run; read-only once the run has finished."""

    mode: ClassVar[ConversationMode] = ConversationMode.run


class DelegationMode(ThreadMode):
    """A parent agent and a child agent; closed when the delegation completes, fails or times
    out. The person watches it and may write into it."""

    mode: ClassVar[ConversationMode] = ConversationMode.delegation
