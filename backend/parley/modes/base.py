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
from typing import TYPE_CHECKING, Any, ClassVar

from parley.auth import Caller
from parley.chat.runner import Event, Work
from parley.config import Settings
from parley.db import Database
from parley.errors import InvalidInput, ParleyError, WrongMode
from parley.models import ConversationMode
from parley.runs.messages import Posted, clean_text
from parley.text import clean_message

if TYPE_CHECKING:  # loaded where turns run (the API), not by `parley mcp`, which posts only
    from parley.assistant.runner import Assistant
    from parley.chat.runner import TurnRunner
    from parley.work.manager import WorkManager

__all__ = ["Limits", "Mode", "Parts", "Posted", "Turn", "not_work", "of_modes"]

# Where this process runs no turns and no sessions (`parley mcp`): what a turn or a session
# needs is not here.
NOT_HERE = (
    "Work sessions and chat turns run inside the Parley API server; this process cannot"
    " reach them. Use the server's /mcp endpoint."
)


@dataclass(frozen=True, slots=True)
class Limits:
    """What every message written into a conversation is held to: read from the settings
    once, when the modes are made, and checked by the mode that takes the message (nothing
    below a mode is handed a limit)."""

    message_chars: int
    question_timeout: float

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        return cls(settings.max_message_chars, settings.question_timeout)

    def message(self, text: object) -> str:
        """A turn's text (`POST /chat`, a prompt): refused as `message`."""
        return clean_message(text, max_chars=self.message_chars)

    def posted(self, text: str) -> str:
        """A posted message's text (`POST .../messages`, `post_message`): refused as `text`."""
        return clean_text(text, max_chars=self.message_chars)


@dataclass(frozen=True, slots=True)
class Parts:
    """The process-wide objects the modes act with (made once by the app's lifespan). A
    process that only posts (`parley mcp`) has no runner, sessions or assistant."""

    db: Database
    settings: Settings
    runner: TurnRunner | None = None
    work: WorkManager | None = None
    assistant: Assistant | None = None
    limits: Limits = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "limits", Limits.of(self.settings))

    @property
    def turns(self) -> TurnRunner:
        if self.runner is None:
            raise ParleyError(NOT_HERE, code="not_here", status=503)
        return self.runner

    @property
    def sessions(self) -> WorkManager:
        if self.work is None:
            raise ParleyError(NOT_HERE, code="not_here", status=503)
        return self.work

    @property
    def model(self) -> Assistant:
        if self.assistant is None:
            raise ParleyError(NOT_HERE, code="not_here", status=503)
        return self.assistant


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
        self,
        *,
        user_id: str,
        conversation_id: int | None,
        text: str | None,
        retry: bool,
        replaces: int | None = None,
    ) -> Turn:
        """Take a person's `POST /chat` message (`text` already checked; None retries, or
        with `replaces` regenerates). `conversation_id` is None only for the mode a new
        conversation gets (chat); `replaces` (a new branch in place of that message) is a
        chat's alone."""
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
        raise not_work(conversation_id)

    async def forget(self, *, user_id: str, conversation_id: int) -> None:
        """Let go of what the conversation holds outside its rows, before it is deleted."""

    async def states(self, *, user_id: str, conversation_ids: list[int]) -> dict[int, Any]:
        """The live state of each of these conversations (all of this mode) the API shows
        beside it, by id; a mode without one reads nothing."""
        return {}

    def no_branches(self, conversation_id: int | None) -> WrongMode:
        """Only a chat's messages are edited and its replies regenerated (in branches)."""
        return WrongMode(
            f"Conversation {conversation_id} is a {self.mode} conversation:"
            " only a chat's messages can be edited",
            mode=self.mode.value,
            conversation_id=conversation_id,
        )


def not_work(conversation_id: int) -> InvalidInput:
    return InvalidInput(
        f"Conversation {conversation_id} is not a work conversation",
        code="not_a_work_conversation",
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
