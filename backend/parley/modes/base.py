"""What every conversation mode answers, and what a mode does unless it says otherwise.

A mode is one class (a subclass of `Mode` naming its `ConversationMode`) listed in
`registry.MODES`. The routes look the conversation's mode up once and ask it; nothing else in
the service branches on a mode's name. The defaults here are those of a conversation that no
assistant or session answers: it takes no `POST /chat`, has nothing running to stop or end,
and no state beyond its messages. The database checks only that a conversation is the
person's and writable (claimed, finished run, closed thread); which writes a kind of
conversation takes is decided here, before any statement that would refuse it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from parley.assistant.runner import Assistant
from parley.auth import Caller
from parley.chat.runner import Event, TurnRunner, Work
from parley.config import Settings
from parley.conversations import StoredMessage
from parley.db import Database
from parley.errors import InvalidInput, ParleyError, WrongMode
from parley.models import ConversationMode
from parley.work.manager import WorkManager


@dataclass(frozen=True, slots=True)
class Parts:
    """The process-wide objects the modes act with (made once by the app's lifespan)."""

    db: Database
    settings: Settings
    runner: TurnRunner
    work: WorkManager
    assistant: Assistant


@dataclass(slots=True)
class Turn:
    """A person's `POST /chat` message, accepted and stored: what the turn runner runs next.

    `first` is what the caller's stream shows before the turn's own events (the stored
    message). `finishes_at_shutdown`: a turn whose reply belongs to the request gets the
    shutdown grace, then is stopped and its partial reply stored; a turn that outlives the
    request elsewhere (a work session, parked by its manager) ends its stream at once."""

    conversation_id: int
    work: Work
    first: list[Event] = field(default_factory=list)
    finishes_at_shutdown: bool = True


@dataclass(slots=True)
class Posted:
    """A message written with `POST .../messages`, and the question it answered, if any."""

    message: StoredMessage
    answered: int | None


class Mode:
    """One kind of conversation. Subclasses set `mode` and override what they do."""

    mode: ClassVar[ConversationMode]
    # Whether a person makes one with `POST /conversations` (the others are made by what
    # they belong to: the inbox on first use, a run, a delegation).
    person_creates: ClassVar[bool] = False
    # Whether `turn` checks in its own first statement that the conversation exists and is
    # the person's: only then may the registry remember the mode and skip its read.
    turn_checks_conversation: ClassVar[bool] = False

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    async def turn(
        self, *, user_id: str, conversation_id: int | None, text: str | None, retry: bool
    ) -> Turn:
        """Take a person's `POST /chat` message (`text` already checked; None retries).
        `conversation_id` is None only for the mode a new conversation gets (chat)."""
        raise WrongMode(
            f"Conversation {conversation_id} is a {self.mode} conversation: write to it with"
            f" POST /api/{{user_id}}/conversations/{conversation_id}/messages",
            mode=self.mode.value,
            conversation_id=conversation_id,
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
        """Take a message written with `POST .../messages` (a person's or an agent's)."""
        raise ParleyError(
            f"A {self.mode} conversation takes no messages here", code="not_writable", status=409
        )

    async def stop(self, *, user_id: str, conversation_id: int) -> bool:
        """End what is running in the conversation now; False when nothing was."""
        return False

    async def end(self, *, user_id: str, conversation_id: int) -> bool:
        """End the conversation's session (work's End button)."""
        raise InvalidInput(
            f"Conversation {conversation_id} is not a work conversation",
            code="not_a_work_conversation",
        )

    async def forget(self, *, user_id: str, conversation_id: int) -> None:
        """Let go of what the conversation holds outside its rows, before it is deleted."""

    async def states(self, *, user_id: str, conversation_ids: list[int]) -> dict[int, Any]:
        """The live state of each of these conversations (all of this mode) the API shows
        beside it, by id; a mode without one reads nothing."""
        return {}

    async def fork_before(self, *, user_id: str, conversation_id: int, message_id: int) -> int:
        """A new chat holding copies of the messages before `message_id` (edit, regenerate)."""
        raise WrongMode(
            f"Conversation {conversation_id} is a {self.mode} conversation:"
            " only a chat's messages can be edited",
            mode=self.mode.value,
            conversation_id=conversation_id,
        )


def of_modes(modes: Iterable[Mode]) -> dict[ConversationMode, Mode]:
    """One object per mode, refusing a mode with no class or with two."""
    found: dict[ConversationMode, Mode] = {}
    for mode in modes:
        if mode.mode in found:
            raise TypeError(f"two classes for mode {mode.mode}: {found[mode.mode]!r}, {mode!r}")
        found[mode.mode] = mode
    missing = set(ConversationMode) - set(found)
    if missing:
        raise TypeError(f"no class for mode(s) {sorted(missing)}")
    return found
