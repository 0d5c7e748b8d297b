"""The MCP tools. Tool docstrings are what models read: they say exactly what each tool does."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.request_state import RequestStateSecurity

from parley import tasks
from parley.config import Settings
from parley.errors import ParleyError
from parley.tasks import TaskRecord
from parley.tools import agent_tools, delegation_tools, permission_tools, work_tools
from parley.tools.annotations import add_tools
from parley.tools.context import Lifespan, caller_of, services_of
from parley.tools.mcp_tasks import WaitingCalls
from parley.tools.waiting import derive_key

INSTRUCTIONS = (
    "Parley keeps a person's to-do list. Each task has a task_id: the person's own task "
    "number (1, 2, 3...), as they see it. Use list_tasks to find it before changing a task; "
    "never guess one."
)
AGENT_INSTRUCTIONS = (
    " To reach the person: post_message (their inbox, or your run's conversation), ask_user "
    "to ask and wait for their answer (then wait_for_answer while it says waiting), and "
    "start_run / report_status / finish_run to let them follow a longer piece of work. "
    "Agents hand work to each other with delegate_task (then wait_for_child, answer_child); "
    "the other agent takes it with next_delegation and ends it with complete, fail or "
    "escalate."
)


# What the SDK's MCPServer always registers and Parley does not serve: with their handlers in
# place it would advertise `prompts` and `resources` (with `subscribe`) and answer an unknown
# prompt with an internal error.
UNSERVED = (
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
)


def _withdraw_unserved(server: MCPServer) -> None:
    """Capabilities are derived from the registered handlers, and MCPServer has no public way
    to leave these out (the SDK reaches the same private attribute for its in-memory client):
    without them, `prompts/*` and `resources/*` are plain "method not found" (-32601)."""
    handlers = server._lowlevel_server._request_handlers
    for method in UNSERVED:
        handlers.pop(method, None)


def task_view(task: TaskRecord) -> dict[str, Any]:
    return {
        "task_id": task.number,
        "title": task.title,
        "description": task.description,
        "completed": task.completed,
        "created_at": task.created_at.isoformat(),
    }


def build_server(
    *,
    lifespan: Lifespan,
    name: str = "parley",
    with_work: bool = True,
    remote: Settings | None = None,
    **options: Any,
) -> MCPServer[Any]:
    """A server whose tools reach the process's services, and who is calling, through the
    context `lifespan` yields (`parley.tools.context`); `remote`: the settings of a remote
    transport (`/mcp`, `parley mcp`), which also serves the tools agents use to talk to the
    person; `options` go to the SDK's MCPServer (its auth, for the HTTP transport)."""
    if remote is not None:
        # Remote transports: waits become MCP tasks, re-sent calls run once, and the
        # 2026-era request state is sealed with a key every instance shares (never a
        # per-process one), so any instance answers any request.
        options.setdefault("extensions", [WaitingCalls(remote)])
        options.setdefault(
            "request_state_security",
            RequestStateSecurity(keys=[derive_key(remote.auth_secret, "mcp-request-state")]),
        )
    server: MCPServer[Any] = MCPServer(
        name=name,
        version=version("parley"),
        instructions=INSTRUCTIONS + (AGENT_INSTRUCTIONS if remote is not None else ""),
        # The tools never change while a server runs: no `listChanged` to promise, and no
        # `subscriptions/listen` stream to serve it on.
        subscriptions=False,
        lifespan=lifespan,
        **options,
    )
    _withdraw_unserved(server)
    if remote is not None:
        agent_tools.register(server)
        delegation_tools.register(server)
        permission_tools.register(server)
    add_tools(server, TASK_TOOLS)
    if with_work:  # where work mode is off, the model is not offered tools that cannot work
        work_tools.register(server)
    return server


async def call(ctx: Context[Any], op: Any, **kwargs: Any) -> Any:
    user_id = (await caller_of(ctx)).user_id
    try:
        return await op((await services_of(ctx)).db, user_id=user_id, **kwargs)
    except ParleyError as exc:  # not found, empty title...: the model can read and recover
        raise ToolError(exc.message) from exc


async def add_task(
    title: str,
    ctx: Context[Any],
    description: str | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Add a task to the person's to-do list.

    title: what to do, 1-500 characters, e.g. "buy milk".
    description: optional details, at most 5000 characters.
    idempotency_key: optional, your own id for this call: sent again with the same key
    (within a day, over /mcp or `parley mcp`), it returns the first call's task and adds
    no second one.
    Returns {"task_id", "status": "created", "title"}.
    """
    task = await call(ctx, tasks.add_task, title=title, description=description)
    return {"task_id": task.number, "status": "created", "title": task.title}


async def list_tasks(
    ctx: Context[Any], status: Literal["all", "pending", "completed"] = "all"
) -> dict[str, Any]:
    """List the person's tasks, oldest first.

    status: "all" (default), "pending" (not yet done) or "completed".
    Returns {"tasks": [{"task_id", "title", "description", "completed", "created_at"}],
    "count"}.
    """
    found = await call(ctx, tasks.list_tasks, status=status)
    return {"tasks": [task_view(t) for t in found], "count": len(found)}


async def complete_task(task_id: int, ctx: Context[Any]) -> dict[str, Any]:
    """Mark one task as done. task_id is the task's number, as list_tasks shows it.

    Returns {"task_id", "status": "completed", "title"}.
    """
    task = await call(ctx, tasks.update_task, number=task_id, completed=True)
    return {"task_id": task.number, "status": "completed", "title": task.title}


async def delete_task(task_id: int, ctx: Context[Any]) -> dict[str, Any]:
    """Delete one task for good. task_id is the task's number, as list_tasks shows it.

    Returns {"task_id", "status": "deleted", "title"}.
    """
    task = await call(ctx, tasks.delete_task, number=task_id)
    return {"task_id": task.number, "status": "deleted", "title": task.title}


async def update_task(
    task_id: int, ctx: Context[Any], title: str | None = None, description: str | None = None
) -> dict[str, Any]:
    """Change a task's title and/or description; give at least one.

    task_id: the task's number, as list_tasks shows it. title: the new title (1-500 characters).
    description: the new details (at most 5000 characters; "" clears them).
    Returns {"task_id", "status": "updated", "title"}.
    """
    if title is None and description is None:
        raise ToolError("Nothing to update: give a title, a description, or both")
    task = await call(ctx, tasks.update_task, number=task_id, title=title, description=description)
    return {"task_id": task.number, "status": "updated", "title": task.title}


TASK_TOOLS = (add_task, list_tasks, complete_task, delete_task, update_task)
