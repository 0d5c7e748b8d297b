"""The registry: every conversation mode's class, and the one place a request finds the mode
of the conversation it names. It is the one writer's front door: a person's turn
(`POST /chat`) and every message posted into a conversation, from the REST routes and the MCP
tools alike, come through `turn` and `post` here (or through `of(mode)` when the door already
knows the mode, as the inbox does). Adding a mode is a class here plus a `ConversationMode` value
(and the database enum's value, and its UI)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from parley import conversations
from parley.attachments import wanted
from parley.auth import Caller
from parley.errors import InvalidInput
from parley.models import ConversationMode
from parley.modes.base import Limits, Mode, Parts, Posted, Turn, not_work, of_modes
from parley.modes.chat import ChatMode
from parley.modes.threads import DelegationMode, InboxMode, RunMode
from parley.modes.work import WorkMode

MODES: tuple[type[Mode], ...] = (ChatMode, WorkMode, InboxMode, RunMode, DelegationMode)
# What `POST /chat` without a conversation makes.
NEW_CONVERSATION = ConversationMode.chat
# Conversations whose mode a turn remembers (per process; least recently used dropped).
REMEMBERED_MODES = 10_000


class Modes:
    """One object per mode, sharing the process's parts; made once by the app's lifespan."""

    def __init__(self, parts: Parts, classes: Iterable[type[Mode]] = MODES) -> None:
        self.parts = parts
        self._modes = of_modes(cls(parts) for cls in classes)
        # (user, conversation) → mode, for turns only: a mode never changes and ids are never
        # reused, and only modes whose turn checks in its own first statement that the
        # conversation still exists and is the person's are remembered, so this saves a
        # turn a database trip without ever letting it past a deleted conversation.
        self._turn_modes: OrderedDict[tuple[str, int], ConversationMode] = OrderedDict()

    def of(self, mode: ConversationMode | str) -> Mode:
        return self._modes[ConversationMode(mode)]

    def person_creates(self) -> frozenset[ConversationMode]:
        """The modes `POST /conversations` makes."""
        return frozenset(m for m, found in self._modes.items() if found.person_creates)

    async def for_conversation(self, *, user_id: str, conversation_id: int | None) -> Mode:
        """The mode of the user's conversation (one read: a mode never changes); None is a
        conversation still to be made. 404 if it is not the user's."""
        if conversation_id is None:
            return self.of(NEW_CONVERSATION)
        return self.of(
            await conversations.mode_of(
                self.parts.db, user_id=user_id, conversation_id=conversation_id
            )
        )

    async def turn(
        self,
        *,
        user_id: str,
        conversation_id: int | None,
        message: str | None,
        retry: bool,
        replaces: int | None = None,
        attachments: Sequence[int] = (),
    ) -> Turn:
        """A person's `POST /chat`: the request's own shape is checked first (no database
        trip for a bad one), then its conversation's mode takes it. Attachments go with a
        chat message only (parley.attachments)."""
        text = checked_message(
            conversation_id=conversation_id,
            message=message,
            retry=retry,
            limits=self.parts.limits,
            replaces=replaces,
        )
        ids = wanted(attachments)
        if ids and retry:
            raise InvalidInput(
                "A retry carries no attachments: it re-runs the stored message with its own",
                details=[{"field": "attachments"}],
            )
        mode = await self.turn_mode(user_id=user_id, conversation_id=conversation_id)
        if ids and not isinstance(mode, ChatMode):
            raise InvalidInput(
                f"Files can be attached to chat messages only, not in a {mode.mode} conversation",
                code="attachments_not_taken",
            )
        files: dict[str, Any] = {"attachments": ids} if ids else {}  # a chat's alone
        return await mode.turn(
            user_id=user_id,
            conversation_id=conversation_id,
            text=text,
            retry=retry,
            replaces=replaces,
            **files,
        )

    async def post(
        self,
        *,
        caller: Caller,
        conversation_id: int,
        text: str,
        kind: str = "message",
        reply_to: int | None = None,
        timeout_s: float | None = None,
    ) -> Posted:
        """A message written into the caller's conversation (`POST .../messages`, an agent's
        `post_message` tool, a person's `send_to_work_session`), as its mode takes one."""
        mode = await self.for_conversation(user_id=caller.user_id, conversation_id=conversation_id)
        return await mode.post(
            caller=caller,
            conversation_id=conversation_id,
            text=text,
            kind=kind,
            reply_to=reply_to,
            timeout_s=timeout_s,
        )

    async def work(self, *, user_id: str, conversation_id: int) -> WorkMode:
        """The work mode, for a door that acts on work conversations only (the work-session
        tools): 404 if the conversation is not the user's, refused if it is not a work one."""
        mode = await self.for_conversation(user_id=user_id, conversation_id=conversation_id)
        if mode is not self.work_mode():
            raise not_work(conversation_id)
        return self.work_mode()

    def work_mode(self) -> WorkMode:
        mode = self.of(ConversationMode.work)
        assert isinstance(mode, WorkMode)
        return mode

    async def turn_mode(self, *, user_id: str, conversation_id: int | None) -> Mode:
        """`for_conversation` for a turn: read once per conversation and process, when the
        mode's turn checks the conversation itself (see `_turn_modes`)."""
        if conversation_id is None:
            return self.of(NEW_CONVERSATION)
        key = (user_id, conversation_id)
        known = self._turn_modes.get(key)
        if known is not None:
            self._turn_modes.move_to_end(key)
            return self.of(known)
        mode = await self.for_conversation(user_id=user_id, conversation_id=conversation_id)
        if not mode.turn_checks_conversation:
            return mode
        self._turn_modes[key] = mode.mode
        if len(self._turn_modes) > REMEMBERED_MODES:
            self._turn_modes.popitem(last=False)
        return mode

    async def states(
        self, *, user_id: str, found: Iterable[tuple[int, ConversationMode | str]]
    ) -> dict[int, Any]:
        """The live state of each conversation (id, mode) whose mode has one, by id: one
        read per mode that has states, none for the others."""
        by_mode: dict[ConversationMode, list[int]] = {}
        for conversation_id, mode in found:
            by_mode.setdefault(ConversationMode(mode), []).append(conversation_id)
        states: dict[int, Any] = {}
        for mode, ids in by_mode.items():
            states.update(await self.of(mode).states(user_id=user_id, conversation_ids=ids))
        return states


def checked_message(
    *,
    conversation_id: int | None,
    message: str | None,
    retry: bool,
    limits: Limits,
    replaces: int | None = None,
) -> str | None:
    """The text of a `POST /chat` (None for a retry), refused as every mode would refuse it,
    and checked nowhere else: a retry names its conversation and carries no message; a
    message is never empty and at most `limits.message_chars` long."""
    if replaces is not None:
        if conversation_id is None or retry:
            raise InvalidInput(
                "An edit or a regenerated reply names its conversation, and is not a retry",
                details=[{"field": "replaces"}],
            )
        if message is None:
            return None  # regenerate: the reply's question is asked again
    if retry:
        if conversation_id is None or message is not None:
            raise InvalidInput(
                "A retry names the conversation and carries no message",
                details=[{"field": "retry"}],
            )
        return None
    return limits.message(message)
