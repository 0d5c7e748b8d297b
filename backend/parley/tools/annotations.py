"""What each tool does to the world, as MCP tool annotations: clients that gate on them
(auto-approve what only reads, ask before what destroys) ask at the right times. Hints, not
guarantees: Parley's own checks hold whatever a client does with them.

Every tool has all four stated. `openWorldHint` is true only where the tool reaches past
Parley's own records: a Claude Code session writes files in the person's workspace and talks
to the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


def _hints(
    *, read_only: bool, destructive: bool = False, idempotent: bool, open_world: bool = False
) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


READS = _hints(read_only=True, idempotent=True)
ADDS = _hints(read_only=False, idempotent=False)  # each call makes something new
SETS = _hints(read_only=False, idempotent=True)  # again with the same arguments: no more effect
OVERWRITES = _hints(read_only=False, destructive=True, idempotent=True)
DRIVES_CLAUDE_CODE = _hints(read_only=False, destructive=True, idempotent=False, open_world=True)

ANNOTATIONS: dict[str, ToolAnnotations] = {
    # The person's tasks.
    "add_task": ADDS,
    "list_tasks": READS,
    "complete_task": SETS,
    "delete_task": OVERWRITES,
    "update_task": OVERWRITES,
    # Reaching the person.
    "post_message": ADDS,
    "read_messages": READS,
    "start_run": ADDS,
    "report_status": ADDS,
    "finish_run": SETS,
    "ask_user": ADDS,
    "wait_for_answer": READS,
    # Claude Code's permission prompt: asks the person once per call id.
    "approve_tool_use": SETS,
    # Agents delegating to agents.
    "delegate_task": ADDS,
    "next_delegation": ADDS,  # claims the next one: a second call claims another
    "ask_parent": ADDS,
    "answer_child": ADDS,
    "read_thread": READS,
    "wait_for_child": READS,
    "complete": SETS,
    "fail": SETS,
    "escalate": SETS,
    "cancel_delegation": OVERWRITES,  # ends another agent's work
    # Claude Code work sessions.
    "start_work_session": DRIVES_CLAUDE_CODE,
    "send_to_work_session": DRIVES_CLAUDE_CODE,
    "get_work_session": READS,
    "end_work_session": OVERWRITES,  # stops the session's processes mid-work
}


def add_tools(server: MCPServer[Any], tools: tuple[Callable[..., Any], ...]) -> None:
    """Register each tool with its annotations; a tool missing from `ANNOTATIONS` stops the
    server from being built (every tool states what it does)."""
    for tool in tools:
        server.add_tool(tool, annotations=ANNOTATIONS[tool.__name__])
