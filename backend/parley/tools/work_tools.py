"""The work-session MCP tools: start, write to, read and end a Claude Code session."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from parley import conversations
from parley.auth import Caller
from parley.errors import ParleyError
from parley.modes import Modes
from parley.tools.annotations import add_tools
from parley.tools.context import caller_of, services_of

# Sessions are reached through the process's work mode, which has sessions only where they
# can live (not in the stdio server, a separate process).
NOT_HERE = (
    "Work sessions run inside the Parley API server; this MCP connection cannot reach them. "
    "Use the server's /mcp endpoint."
)
READ_LIMIT = 20


AGENT_REFUSED = (
    "Refused: an agent's token cannot write to the person's work session or answer its"
    " permission questions (an agent never writes as the person). Ask the person with"
    " ask_user, or tell them which conversation to open."
)


async def call(
    ctx: Context[Any], op: Callable[..., Awaitable[Any]], *, writes: bool = True, **kwargs: Any
) -> Any:
    """`op` on the process's modes as the caller's person; what writes as the person refuses
    an agent's token (remote transports, where a token can be either)."""
    modes = (await services_of(ctx)).modes
    if modes.parts.work is None:
        raise ToolError(NOT_HERE)
    caller = await caller_of(ctx)
    if writes and caller.agent is not None:
        raise ToolError(AGENT_REFUSED)
    try:
        return await op(modes, caller.user_id, **kwargs)
    except ParleyError as exc:
        raise ToolError(exc.message) from exc


async def start_work_session(
    prompt: str, ctx: Context[Any], title: str | None = None, workspace: str | None = None
) -> dict[str, Any]:
    """Start a Claude Code work session (a coding agent that reads and writes files and
    runs commands in the person's workspace) in a new work conversation, and give it its
    first prompt, as the person. Only with the person's own token: an agent's token is
    refused. Returns at once; the session works on in that conversation, where the
    person watches it and answers its permission questions.

    prompt: what Claude Code should do, e.g. "fix the failing test in tests/test_api.py".
    title: the conversation's title (default: from the prompt).
    workspace: a folder name under the server's workspace root (default: the person's).
    Returns {"conversation_id", "title", "status": "started"}; tell the person to open
    that conversation.
    """
    return await call(ctx, _start, prompt=prompt, title=title, workspace=workspace)


async def send_to_work_session(
    conversation_id: int, text: str, ctx: Context[Any]
) -> dict[str, Any]:
    """Send the person's message to the Claude Code session of a work conversation: a
    new prompt (the session is resumed if it had ended), or "allow"/"deny" to answer the
    permission question it is waiting on. Only with the person's own token: an agent's
    token is refused and nothing is stored (an agent never answers for the person).
    Returns at once with {"conversation_id", "message_id", "status": "sent"}; read what
    follows with get_work_session.
    """
    return await call(ctx, _send, conversation_id=conversation_id, text=text)


async def get_work_session(
    conversation_id: int, ctx: Context[Any], after: int | None = None
) -> dict[str, Any]:
    """The state of a work conversation's session and its latest messages.

    after: only messages with a larger id (pass the last id you saw to read on).
    Returns {"conversation_id", "status" (starting|working|waiting_permission|idle|
    ended), "cost_usd", "run_id", "pending_question_id", "messages": [{"id", "role",
    "kind", "type", "content"}]} with at most 20 messages, oldest first.
    """
    return await call(ctx, _get, writes=False, conversation_id=conversation_id, after=after)


async def end_work_session(conversation_id: int, ctx: Context[Any]) -> dict[str, Any]:
    """End the Claude Code session of a work conversation: its process and every
    command it started are stopped. Writing to the conversation later resumes it. Only
    with the person's own token: an agent's token is refused.
    Returns {"conversation_id", "ended": true|false (false: nothing was running)}.
    """
    return await call(ctx, _end, conversation_id=conversation_id)


async def _start(
    modes: Modes, user_id: str, *, prompt: str, title: str | None, workspace: str | None
) -> dict[str, Any]:
    conversation_id = await modes.work_mode().start(
        user_id=user_id, prompt=prompt, title=title, workspace=workspace
    )
    found = await conversations.get_conversation(
        modes.parts.db, user_id=user_id, conversation_id=conversation_id
    )
    return {
        "conversation_id": conversation_id,
        "title": found.conversation.title,
        "status": "started",
    }


async def _send(modes: Modes, user_id: str, *, conversation_id: int, text: str) -> dict[str, Any]:
    work = await modes.work(user_id=user_id, conversation_id=conversation_id)
    posted = await work.post(
        caller=Caller(user_id),
        conversation_id=conversation_id,
        text=text,
        kind="message",
        reply_to=None,
        timeout_s=None,
    )
    return {
        "conversation_id": conversation_id,
        "message_id": posted.message.id,
        "status": "sent",
    }


async def _get(
    modes: Modes, user_id: str, *, conversation_id: int, after: int | None
) -> dict[str, Any]:
    work = await modes.work(user_id=user_id, conversation_id=conversation_id)
    state = await work.states(user_id=user_id, conversation_ids=[conversation_id])
    found = await conversations.list_messages(
        modes.parts.db,
        user_id=user_id,
        conversation_id=conversation_id,
        after=after,
        limit=READ_LIMIT,
    )
    return {
        "conversation_id": conversation_id,
        **state[conversation_id],
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "kind": m.kind,
                "type": (m.meta or {}).get("type"),
                "content": m.content,
            }
            for m in found
        ],
    }


async def _end(modes: Modes, user_id: str, *, conversation_id: int) -> dict[str, Any]:
    work = await modes.work(user_id=user_id, conversation_id=conversation_id)
    ended = await work.end(user_id=user_id, conversation_id=conversation_id)
    return {"conversation_id": conversation_id, "ended": ended}


TOOLS = (
    start_work_session,
    send_to_work_session,
    get_work_session,
    end_work_session,
)


def register(server: MCPServer[Any]) -> None:
    add_tools(server, TOOLS)
