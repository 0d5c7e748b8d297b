"""The tool-call ledger on its own (a stand-in database): a result is written behind the call,
and the conversation's next call waits for it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from parley.assistant.ledger import Ledger, TurnKey
from parley.db import Database

pytestmark = pytest.mark.unit


class StandInDb:
    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.results_written = asyncio.Event()  # held shut: the result's write is slow

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[StandInDb]:
        yield self

    async def fetchval(self, _sql: str, conversation_id: int, *args: Any) -> int:
        self.log.append(("begin", (conversation_id, args[3])))
        return len(self.log)

    async def execute(self, _sql: str, record: int, result: Any, _user_id: str) -> None:
        await self.results_written.wait()
        self.log.append(("result", result))


def key(conversation_id: int) -> TurnKey:
    return TurnKey(user_id="alice", conversation_id=conversation_id, turn_id="t", prompt_id=1)


def answering(value: str) -> Any:
    async def call() -> Any:
        return {"done": value}

    return call


async def test_the_model_hears_a_result_before_it_is_written_and_the_next_call_waits() -> None:
    db = StandInDb()
    ledger = Ledger(cast(Database, db))
    first = await ledger.call(key(1), "add_task", {"title": "a"}, answering("a"))
    assert first == {"done": "a"}  # answered while its record is still being written
    second = asyncio.create_task(ledger.call(key(1), "add_task", {"title": "b"}, answering("b")))
    elsewhere = await ledger.call(key(2), "add_task", {"title": "c"}, answering("c"))
    assert elsewhere == {"done": "c"}  # another conversation does not wait
    assert db.log == [("begin", (1, "add_task")), ("begin", (2, "add_task"))]
    db.results_written.set()
    assert await second == {"done": "b"}
    await asyncio.gather(*(task for tasks in list(ledger._writing.values()) for task in tasks))
    assert ledger._writing == {}  # nothing in flight: no conversation is kept
    await ledger.settled(1)
    await ledger.settled(2)
    ones = [
        entry for entry in db.log if entry[1] in ((1, "add_task"), {"done": "a"}, {"done": "b"})
    ]
    assert ones == [
        ("begin", (1, "add_task")),
        ("result", {"done": "a"}),  # written before the conversation's next call began
        ("begin", (1, "add_task")),
        ("result", {"done": "b"}),
    ]
