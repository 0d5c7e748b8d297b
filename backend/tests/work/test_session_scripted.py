"""A session driven through a scripted `Transport` instead of the real CLI: the SDK's own
client and control protocol, Parley's session and PostgreSQL are real; Claude Code's side is
a script, so each case takes milliseconds. (The real CLI's side: test_claude_cli.py.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from parley.db import Database
from parley.models import RunStatus
from parley.realtime.waits import Waits
from parley.work import ownership, store
from parley.work.ownership import Owner
from parley.work.prompts import Ended
from parley.work.relay import Relay
from parley.work.session import Services, Session
from parley.work.status import WorkStatus
from parley.work.transport import ProcessTransport
from tests.conftest import settings_for

SESSION = "scripted-session"


def text_reply(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "system", "subtype": "init", "session_id": SESSION},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": text}],
            },
            "session_id": SESSION,
        },
        {
            "type": "result",
            "subtype": "success",
            "duration_ms": 1,
            "duration_api_ms": 1,
            "is_error": False,
            "num_turns": 1,
            "session_id": SESSION,
            "result": text,
            "total_cost_usd": 0.001,
        },
    ]


class Scripted(ProcessTransport):
    """Claude Code as a script. Its "process" is a harmless `sleep` in a group of its own,
    so what the session kills is real and ours."""

    def __init__(self, argv: list[str], *, replies: list[list[dict[str, Any]]], **kw: Any) -> None:
        super().__init__(["sleep", "60"], **kw)
        self.argv_asked = argv
        self.replies = replies
        self.out: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.prompts: list[str] = []

    async def write(self, data: str) -> None:
        message = json.loads(data)
        if message.get("type") == "control_request":
            response = {"subtype": "success", "request_id": message["request_id"], "response": {}}
            await self.out.put({"type": "control_response", "response": response})
        elif message.get("type") == "user":
            self.prompts.append(message["message"]["content"])
            for reply in self.replies.pop(0):
                await self.out.put(reply)

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self._scripted()

    async def _scripted(self) -> AsyncIterator[dict[str, Any]]:
        while (message := await self.out.get()) is not None:
            yield message


class Notes:
    """The live events the session publishes (to every watcher, through the notifier)."""

    def __init__(self) -> None:
        self.live: list[tuple[int, str, dict[str, Any]]] = []

    def publish_live(self, conversation_id: int, event: str, data: dict[str, Any]) -> None:
        self.live.append((conversation_id, event, data))


@pytest.fixture
async def started(db: Database, tmp_path: Path) -> AsyncIterator[Any]:
    """`await started(replies)`: a live session on a scripted transport, and its transports."""
    made: list[Scripted] = []
    sessions: list[Session] = []
    owner = Owner.here()
    notes = Notes()
    settings = settings_for(
        PARLEY_WORK_PERMISSION_MODE="none",
        PARLEY_DATA_DIR=tmp_path / "data",
        PARLEY_WORKSPACE_ROOT=tmp_path / "workspaces",
    )
    relay = Relay(db=db, settings=settings)

    async def start(replies: list[list[dict[str, Any]]]) -> tuple[Session, list[Scripted]]:
        def launch(argv: list[str], **kw: Any) -> Scripted:
            made.append(Scripted(argv, replies=replies, **kw))
            return made[-1]

        async with db.connection() as conn:
            conversation = await conn.fetchval(
                "INSERT INTO conversations (user_id, mode, title) VALUES ('ann', 'work', 'w')"
                " RETURNING id"
            )
        await ownership.claim(
            db, owner=owner, conversation_id=conversation, user_id="ann", workspace="ann"
        )
        run_id = await store.start_run_within_limit(
            db,
            user_id="ann",
            conversation_id=conversation,
            title="t",
            instance=owner.instance,
            limit=9,
        )
        assert run_id is not None
        services = Services(
            db=db,
            settings=settings,
            notifier=notes,  # type: ignore[arg-type]
            waits=Waits(),
            owner=owner,
            relay=relay,
            launch=launch,  # type: ignore[arg-type]
        )
        session = Session(
            services,
            conversation_id=conversation,
            user_id="ann",
            run_id=run_id,
            cwd=tmp_path,
            cli=Path("/nonexistent/claude"),
            resume=None,
            allowed_tools=[],
        )
        session.task = asyncio.create_task(session.run())
        sessions.append(session)
        return session, made

    yield start
    for session in sessions:
        await session.kill(RunStatus.cancelled)
    await relay.shutdown()


async def run_status(db: Database, run_id: int) -> str:
    async with db.connection() as conn:
        return str(await conn.fetchval("SELECT status FROM agent_runs WHERE id = $1", run_id))


async def test_a_prompt_is_answered_and_end_returns_ended_with_the_process_gone(
    started: Any, db: Database
) -> None:
    session, made = await started([text_reply("Hello"), text_reply("Again")])
    first = session.submit("hi", message_id=1)
    assert (await first.future).result == "Hello"
    assert session.submit("hi", message_id=1) is first  # the same message is one prompt
    assert (await session.submit("more", message_id=2).future).result == "Again"
    assert made[0].prompts == ["hi", "more"]
    assert "--permission-mode" in made[0].argv_asked and "PARLEY_AUTH_SECRET" not in made[0].env
    row = await store.get_session(db, user_id="ann", conversation_id=session.conversation_id)
    assert row is not None and row.session_id == SESSION and row.status == "idle"
    pid = made[0].pid
    assert pid is not None and psutil.pid_exists(pid)
    await session.kill(RunStatus.completed)
    assert session.task is not None and session.task.done()
    assert session.task.result() == Ended(RunStatus.completed, None)
    assert session.status is WorkStatus.ended
    assert await run_status(db, session.run_id) == "completed"
    with pytest.raises(psutil.NoSuchProcess):
        assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


async def test_end_waits_for_a_session_that_is_already_storing_how_it_ended(
    started: Any, db: Database
) -> None:
    """The process died on its own just before End: End returns once the run is ended, not
    while the dying session is still storing it (the flaky delete test's race)."""
    session, made = await started([text_reply("Hello")])
    await session.submit("hi", message_id=1).future
    async with db.transaction() as conn:
        # The run's row is held, so the dying session's end_run waits for it.
        await conn.execute("SELECT 1 FROM agent_runs WHERE id = $1 FOR UPDATE", session.run_id)
        made[0].out.put_nowait(None)  # the output ends: the process is gone
        assert made[0].process is not None
        made[0].process.kill()
        while not session._finishing:  # noqa: ASYNC110 - the session's own step, milliseconds
            await asyncio.sleep(0.005)
        ending = asyncio.create_task(session.kill(RunStatus.completed))
        done, _ = await asyncio.wait({ending}, timeout=0.5)
        assert not done  # End waits while the run cannot be stored yet
    await asyncio.wait_for(ending, timeout=5)
    assert await run_status(db, session.run_id) != "running"


async def test_each_stored_step_ends_the_live_reply_by_its_message_id(
    started: Any, db: Database
) -> None:
    """A watcher renders a work reply from the conversation's event stream alone: a step's
    end names the message its text was stored as, so its live text is handed over to that
    message, and the next step's text starts a new reply."""
    session, _made = await started([text_reply("Hello"), text_reply("Again")])
    await session.submit("hi", message_id=1).future
    await session.submit("more", message_id=2).future
    async with db.connection() as conn:
        stored = await conn.fetch(
            "SELECT id, content FROM messages WHERE conversation_id = $1 AND role = 'assistant'"
            " AND content IN ('Hello', 'Again') ORDER BY id",
            session.conversation_id,
        )
    ends = [
        data.get("message_id")
        for conversation_id, event, data in session.notifier.live
        if event == "turn_end" and conversation_id == session.conversation_id
    ]
    assert [row["content"] for row in stored] == ["Hello", "Again"]
    assert [row["id"] for row in stored] == [end for end in ends if end is not None]
