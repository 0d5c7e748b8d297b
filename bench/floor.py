"""The floor: the server's agent and MCP tools run in-process, with no HTTP and no database.

The same pieces the server uses — `OfflineModel`, `build_agent`, `TurnContext`, the Agents
SDK `Runner` (streamed, as the server runs it), Parley's MCP server from `build_server`
reached through `InProcessTools` — but the `parley.tasks` functions the tools call are
replaced by in-memory ones, and the conversation history is a list in memory, capped at
the same 50 messages the server loads.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from lib import pct


@contextmanager
def in_memory_tasks() -> Iterator[dict[int, Any]]:
    """Swap the task service for a dict of `TaskRecord`s for as long as the block runs."""
    from parley import tasks
    from parley.errors import NotFound
    from parley.tasks import TaskRecord

    store: dict[int, TaskRecord] = {}
    ids = itertools.count(1)

    async def add_task(
        db: Any, *, user_id: str, title: str, description: str | None = None
    ) -> TaskRecord:
        now = datetime.now(UTC)
        number = next(ids)
        task = TaskRecord(
            id=number,
            user_id=user_id,
            number=number,
            title=tasks.clean_title(title),
            description=tasks.clean_description(description),
            completed=False,
            created_at=now,
            updated_at=now,
        )
        store[task.number] = task
        return task

    async def list_tasks(db: Any, *, user_id: str, status: str = "all") -> list[TaskRecord]:
        found = [t for t in store.values() if t.user_id == user_id]
        if status != "all":
            found = [t for t in found if t.completed == (status == "completed")]
        return found

    def owned(user_id: str, number: int) -> TaskRecord:
        task = store.get(number)
        if task is None or task.user_id != user_id:
            raise NotFound(f"Task {number} not found", number=number)
        return task

    async def update_task(
        db: Any,
        *,
        user_id: str,
        number: int,
        title: str | None = None,
        description: str | None = None,
        completed: bool | None = None,
    ) -> TaskRecord:
        task = owned(user_id, number)
        if title is not None:
            task.title = tasks.clean_title(title)
        if description is not None:
            task.description = tasks.clean_description(description)
        if completed is not None:
            task.completed = completed
        task.updated_at = datetime.now(UTC)
        return task

    async def delete_task(db: Any, *, user_id: str, number: int) -> TaskRecord:
        return store.pop(owned(user_id, number).number)

    saved = {
        name: getattr(tasks, name)
        for name in ("add_task", "list_tasks", "update_task", "delete_task")
    }
    tasks.add_task, tasks.list_tasks = add_task, list_tasks  # type: ignore[assignment]
    tasks.update_task, tasks.delete_task = update_task, delete_task  # type: ignore[assignment]
    try:
        yield store  # type: ignore[misc]
    finally:
        for name, fn in saved.items():
            setattr(tasks, name, fn)


class _NoDatabase:
    """Handed to build_server: any attempt to reach a database fails loudly."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the floor touched the database ({name})")


def _services(settings: Any) -> Any:
    """The services the tools reach, on a database that must not be touched."""
    from parley.accounts.credentials import Credentials
    from parley.modes import Modes, Parts
    from parley.realtime.hub import Hub, message_fetcher
    from parley.realtime.notifier import Notifier
    from parley.realtime.waits import Waits
    from parley.services import Services

    db: Any = _NoDatabase()
    hub = Hub(message_fetcher(db))
    return Services(
        settings=settings,
        db=db,
        credentials=Credentials(db, secret=settings.auth_secret, cache_seconds=0),
        hub=hub,
        waits=Waits(),
        notifier=Notifier(database_url="postgresql://unused/unused", hub=hub),
        modes=Modes(Parts(db=db, settings=settings)),
    )


async def measure_floor(
    message: str, *, warmup: int, turns: int, history_limit: int = 50
) -> dict[str, Any]:
    from agents import Runner, set_tracing_disabled
    from agents.stream_events import RunItemStreamEvent
    from parley.assistant.agent import TurnContext, build_agent, mcp_function_tools
    from parley.assistant.history import history_items
    from parley.assistant.mcp_bridge import InProcessTools
    from parley.assistant.offline import OfflineModel
    from parley.assistant.runner import Reply, record_item
    from parley.config import Settings
    from parley.messages.store import StoredMessage
    from parley.tools.context import ToolContext, serving
    from parley.tools.identity import from_request_meta
    from parley.tools.server import build_server

    set_tracing_disabled(True)  # as the server does without an OpenAI key
    with in_memory_tasks():
        tools = InProcessTools()
        await tools.connect(
            build_server(
                lifespan=serving(
                    ToolContext(services=_services(Settings()), caller=from_request_meta)
                )
            )
        )
        model = OfflineModel()
        function_tools = await mcp_function_tools(tools, model=model)
        context = TurnContext(user_id="floor-user", conversation_id=1)
        history: list[StoredMessage] = []

        def stored(role: str, content: str, tool_calls: Any = None) -> StoredMessage:
            return StoredMessage(
                id=len(history) + 1,
                conversation_id=1,
                user_id="floor-user",
                role=role,
                author=role,
                kind="message",
                content=content,
                tool_calls=tool_calls,
                error=False,
                reply_to=None,
                meta=None,
                created_at=datetime.now(UTC),
            )

        latencies: list[float] = []
        last = ""
        try:
            cpu0 = 0.0
            wall0 = 0.0
            for i in range(warmup + turns):
                if i == warmup:
                    cpu0, wall0 = time.process_time(), time.perf_counter()
                t0 = time.perf_counter()
                history.append(stored("user", message))
                agent = build_agent(model=model, tools=function_tools)
                # The server's model input too: earlier tool calls replayed as tool items.
                result = Runner.run_streamed(
                    agent, history_items(history[-history_limit:]), context=context, max_turns=8
                )
                reply, pending = Reply(), {}  # type: ignore[var-annotated]
                async for event in result.stream_events():
                    if isinstance(event, RunItemStreamEvent):
                        record_item(event, reply, pending, lambda *_: None)
                last = str(result.final_output or "").strip()
                history.append(stored("assistant", last, reply.tool_calls or None))
                if i >= warmup:
                    latencies.append(time.perf_counter() - t0)
            cpu = time.process_time() - cpu0
            wall = time.perf_counter() - wall0
        finally:
            await tools.cleanup()
    return {
        "message": message,
        "turns": turns,
        "p50": pct(latencies, 50),
        "p99": pct(latencies, 99),
        "mean": wall / turns,
        "cpu_per_turn": cpu / turns,
        "reply": last,
    }
