"""The modes on their own, without a database: a stand-in database that answers the few
statements the registry's decisions depend on (and records every one, so a test can say no
trip was made), a recording work manager, and the real turn runner."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from parley.assistant.runner import Assistant
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database
from parley.modes import Modes, Parts
from parley.work.manager import WorkManager


@dataclass
class Conversation:
    user_id: str
    mode: str
    claimed: bool = False


@dataclass
class StandInDb:
    """The rows a test gives (`conversations`, `sessions` of work_sessions), read by the
    statements the modes make; any other statement fails the test."""

    conversations: dict[int, Conversation] = field(default_factory=dict)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    statements: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[StandInDb]:
        yield self

    def _own(self, conversation_id: int, user_id: str) -> Conversation | None:
        found = self.conversations.get(conversation_id)
        return found if found is not None and found.user_id == user_id else None

    async def fetchval(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        if sql.startswith("SELECT mode FROM conversations"):
            found = self._own(*args)
            return found.mode if found else None
        raise AssertionError(f"unexpected statement: {sql}")

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        if "turn_expires_at > now() AS claimed" in sql:
            found = self._own(*args)
            return {"claimed": found.claimed} if found else None
        raise AssertionError(f"unexpected statement: {sql}")

    async def fetch(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        if "FROM work_sessions" in sql:
            user_id, ids = args
            return [
                s for s in self.sessions if s["user_id"] == user_id and s["conversation_id"] in ids
            ]
        raise AssertionError(f"unexpected statement: {sql}")


@dataclass
class RecordingManager:
    """A work manager that says what it was asked: stop (True if a prompt was running) and
    end (True if a session was)."""

    running: set[int] = field(default_factory=set)
    calls: list[tuple[str, int]] = field(default_factory=list)

    async def stop(self, user_id: str, conversation_id: int) -> bool:
        self.calls.append(("stop", conversation_id))
        return conversation_id in self.running

    async def end(self, *, user_id: str, conversation_id: int, wait: bool = False) -> bool:
        self.calls.append(("end", conversation_id))
        return conversation_id in self.running


@dataclass
class World:
    db: StandInDb
    work: RecordingManager
    runner: TurnRunner
    modes: Modes
    forwarded: list[int]


@pytest.fixture
def world() -> World:
    db, work, forwarded = StandInDb(), RecordingManager(), []
    runner = TurnRunner(lambda *_: None, forward_stop=forwarded.append)
    parts = Parts(
        db=cast(Database, db),
        settings=Settings(max_message_chars=50),
        runner=runner,
        work=cast(WorkManager, work),
        assistant=cast(Assistant, None),
    )
    return World(db, work, runner, Modes(parts), forwarded)


def no_trips(world: World) -> Callable[[], bool]:
    return lambda: world.db.statements == []
