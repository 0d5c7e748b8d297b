"""The turn's in-flight record of tool calls (table `turn_tool_calls`).

Every tool call a turn makes is written down as it happens: a row before the call, its
result after. Three things follow.

- Fencing: the row is written only while the turn still holds its claim, in the same
  statement that checks it, so a turn that lost its claim (it stalled past the claim's
  expiry and another turn took the conversation) runs no further tool.
- A crash leaves a trace: a dead turn's rows become its reply (an error holding the calls)
  when its claim is taken over or swept; see parley/sql/turn_abandoned.sql.
- A retry repeats no effect: a turn answering the same person's message as an earlier one
  (a retry) gets the earlier result for a call it makes again with the same arguments,
  without running it. Calls that only read (`list_*`, `get_*`, `read_*`) and calls that
  failed (no effect to repeat) run again.

The result is written behind the call, not before the model hears it: nobody reads it
before the conversation's next tool call (which waits for it here) or a crash (which then
finds the call without its result, as it would had the crash come a moment earlier), and
the turn saves a round trip per tool call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from parley.db import Database
from parley.errors import TurnInProgress
from parley.text import scrub

from . import store

log = logging.getLogger(__name__)

READ_PREFIXES = ("list_", "get_", "read_")
UNKNOWN = {"error": "Interrupted before it reported back: it may or may not have happened"}


@dataclass(frozen=True)
class TurnKey:
    """Which turn a tool call belongs to; travels with the call (request `_meta`)."""

    user_id: str
    conversation_id: int
    turn_id: str
    prompt_id: int
    retry: bool = False


class Ledger:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Results still being written, by conversation.
        self._writing: dict[int, set[asyncio.Task[None]]] = {}

    async def call(
        self,
        key: TurnKey,
        tool: str,
        arguments: dict[str, Any],
        run: Callable[[], Awaitable[Any]],
    ) -> Any:
        """Run `run` (the tool call) on the record: answered from an earlier try when
        that try made the same call, else recorded before it runs and after. The record
        keeps the model's arguments as storable text (`scrub`); the tool gets them as sent."""
        await self.settled(key.conversation_id)
        recorded = scrub(arguments)
        # Only a retry answers a prompt an earlier try did: other turns skip the lookup.
        replayable = key.retry and not tool.startswith(READ_PREFIXES)
        earlier = await self._earlier(key, tool, recorded) if replayable else None
        if earlier is not None:
            earlier_id, result = earlier
            await self._begin(key, tool, recorded, result=result, replay_of=earlier_id)
            return result
        record = await self._begin(key, tool, recorded)
        result = await run()
        task = asyncio.create_task(self._done(key.user_id, record, result))
        self._writing.setdefault(key.conversation_id, set()).add(task)
        task.add_done_callback(lambda t: self._written(key.conversation_id, t))
        return result

    async def settled(self, conversation_id: int) -> None:
        """Until the results of the conversation's earlier calls are written."""
        writing = self._writing.get(conversation_id)
        if writing:
            await asyncio.gather(*writing)

    def _written(self, conversation_id: int, task: asyncio.Task[None]) -> None:
        """A result is written: a conversation with none left in flight is forgotten, so
        the map holds only conversations with a write under way."""
        writing = self._writing.get(conversation_id)
        if writing is not None:
            writing.discard(task)
            if not writing:
                del self._writing[conversation_id]

    async def _done(self, user_id: str, record: int, result: Any) -> None:
        try:
            async with self.db.connection() as conn:
                await store.done(conn, user_id=user_id, record=record, result=scrub(result))
        except Exception:  # the call happened: only its record lacks the result
            log.warning("could not record the result of tool call %s", record, exc_info=True)

    async def _earlier(
        self, key: TurnKey, tool: str, arguments: dict[str, Any]
    ) -> tuple[int, Any] | None:
        async with self.db.connection() as conn:
            found = await store.earlier(
                conn,
                user_id=key.user_id,
                conversation_id=key.conversation_id,
                prompt_id=key.prompt_id,
                turn_id=key.turn_id,
                tool=tool,
                arguments=arguments,
            )
        if found is None:
            return None
        earlier_id, result = found
        return earlier_id, result if result is not None else UNKNOWN

    async def _begin(
        self,
        key: TurnKey,
        tool: str,
        arguments: dict[str, Any],
        *,
        result: Any = None,
        replay_of: int | None = None,
    ) -> int:
        """Write the record, only while the turn holds its claim (TurnInProgress if not)."""
        async with self.db.connection() as conn:
            record = await store.begin(
                conn,
                user_id=key.user_id,
                conversation_id=key.conversation_id,
                turn_id=key.turn_id,
                prompt_id=key.prompt_id,
                tool=tool,
                arguments=arguments,
                result=result,
                replay_of=replay_of,
            )
        if record is None:
            raise TurnInProgress(
                "This reply lost its hold on the conversation (it took too long)",
                conversation_id=key.conversation_id,
            )
        return record
