"""The conversations no assistant or session answers: people and agents write into them with
`POST .../messages` or an agent's `post_message` tool (stored by `parley.runs.messages`), a
person's message answering the open question it replies to. They take no `POST /chat`, have
nothing to stop or end, and show no state beyond their messages (a run's and a thread's own
state are their own resources). Whether one still takes writes (a finished run, a closed
thread) is the database's check."""

from __future__ import annotations

from typing import ClassVar

from parley.auth import Caller
from parley.models import ConversationMode
from parley.modes.base import Mode, Posted
from parley.runs import messages


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


class InboxMode(ThreadMode):
    """One per person, made on first use: where agents write to them first."""

    mode: ClassVar[ConversationMode] = ConversationMode.inbox


class RunMode(ThreadMode):
    """The channel of one agent run; read-only once the run has finished."""

    mode: ClassVar[ConversationMode] = ConversationMode.run


class DelegationMode(ThreadMode):
    """A parent agent and a child agent; closed when the delegation completes, fails or times
    out. The person watches it and may write into it."""

    mode: ClassVar[ConversationMode] = ConversationMode.delegation
