"""The agent tools: write to the person, ask and wait, and record runs.

Served to remote agents (`/mcp`, `parley mcp`) only, not to the in-process assistant, whose
turn must never block on a person. The identity (person, and agent name) is the token's.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import Caller
from parley.config import Settings
from parley.models import ConversationMode
from parley.modes import Modes
from parley.questions import ask as asking
from parley.questions import escalation
from parley.questions.store import QuestionState
from parley.runs import delegations, inbox, runs
from parley.runs.messages import post_question, wait_for_messages
from parley.runs.schemas import run_json
from parley.schemas import message_json
from parley.services import Services
from parley.tools.annotations import add_tools
from parley.tools.context import guarded, services_of
from parley.tools.waiting import WaitKind, WaitRef, current_slot


def answer_view(state: QuestionState) -> dict[str, Any]:
    view: dict[str, Any] = {"question_id": state.question.id}
    if state.status == "answered" and state.answer is not None:
        view.update(status="answered", answer=state.answer.content, answered_by=state.answer.author)
    elif state.status == "timed_out":
        view.update(status="timed_out", message="Nobody answered in time; do not assume one.")
    else:
        view.update(
            status="waiting",
            message="No answer yet: call wait_for_answer with this question_id.",
            seconds_left=round(state.seconds_left),
        )
    return view


def agent_of(caller: Caller) -> str:
    if caller.agent is None:
        raise ToolError("This tool needs an agent's token: `parley token --user U --agent NAME`")
    return caller.agent


def wait_cap(settings: Settings, seconds: float) -> float:
    """In-band waits are capped (PARLEY_TOOL_WAIT_MAX)."""
    return max(0.0, min(seconds, settings.tool_wait_max))


async def read(
    services: Services, caller: Caller, conversation_id: int, after: int, wait_s: float
) -> dict[str, Any]:
    """Messages after `after`, long-polled up to the capped `wait_s`."""
    found = await wait_for_messages(
        services.db,
        services.hub,
        user_id=caller.user_id,
        conversation_id=conversation_id,
        after=max(0, after),
        wait_s=wait_cap(services.settings, wait_s),
    )
    return {
        "messages": [message_json(m) for m in found],
        "last_id": found[-1].id if found else after,
    }


async def ask(
    services: Services,
    caller: Caller,
    conversation_id: int,
    question: str,
    timeout_s: float | None,
    chosen: escalation.Escalation = escalation.Escalation(),
) -> dict[str, Any]:
    """Ask as the caller's agent (`questions.ask`), then wait for the answer in-band
    (capped), or leave the wait to the layer around the call."""
    agent_of(caller)
    settings = services.settings
    asked = await asking.ask(
        services.db,
        user_id=caller.user_id,
        conversation_id=conversation_id,
        place=partial(post_question, caller=caller),
        text=question,
        max_chars=settings.max_message_chars,
        timeout_s=timeout_s,
        default_timeout=settings.question_timeout,
        escalation=chosen,
    )
    wait_s = wait_cap(settings, settings.tool_wait_max)
    slot = current_slot()
    if slot is not None:  # the layer around the call waits (in-band, or as a task)
        slot.wait, slot.wait_s = WaitRef(WaitKind.question, asked.id), wait_s
        return {"status": "waiting", "question_id": asked.id}
    state = await asking.wait_for_answer(
        services.db, services.waits, caller=caller, question_id=asked.id, wait_s=wait_s
    )
    return answer_view(state)


async def conversation_of(services: Services, caller: Caller, run_id: int | None) -> int:
    if run_id is None:
        return await inbox.inbox_id(services.db, user_id=caller.user_id)
    return await runs.run_conversation(services.db, caller=caller, run_id=run_id)


async def post_message(
    text: str,
    ctx: Context[Any],
    run_id: int | None = None,
    kind: Literal["message", "status"] = "message",
    reply_to: int | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Write a message to the person: into your run's conversation (run_id from
    start_run), or, without run_id, into their inbox, which they see whenever they open
    Parley (no need for them to be online). text: 1-16000 characters.
    Returns the stored message: {"id", "conversation_id", "role", "author", "content", ...}.
    idempotency_key: optional, your own id for this call: sent again with the same key
    (within a day), it returns the first call's result and posts nothing twice.
    """

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        conversation_id = await conversation_of(services, caller, run_id)
        mode = ConversationMode.inbox if run_id is None else ConversationMode.run
        modes: Modes = services.modes  # every write into a conversation goes through them
        posted = await modes.of(mode).post(
            caller=caller,
            conversation_id=conversation_id,
            text=text,
            kind=kind,
            reply_to=reply_to,
            timeout_s=None,
        )
        return message_json(posted.message)

    return await guarded(ctx, op)


async def read_messages(
    ctx: Context[Any], run_id: int | None = None, after: int = 0, wait_s: float = 0
) -> dict[str, Any]:
    """Read messages of your run (or, without run_id, the inbox) with an id greater than
    `after`, oldest first (at most 100). With wait_s > 0 (at most 50), waits for the
    first new one if there is none yet. Pass the last id you saw as `after` next time.
    Returns {"messages": [{"id", "role", "author", "kind", "content", "reply_to", ...}],
    "last_id"}.
    """

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        conversation_id = await conversation_of(services, caller, run_id)
        if run_id is not None:
            await runs.touch(
                services.db,
                caller=caller,
                run_id=run_id,
                wait_s=wait_cap(services.settings, wait_s),
            )
        return await read(services, caller, conversation_id, after, wait_s)

    return await guarded(ctx, op)


async def start_run(
    ctx: Context[Any],
    title: str | None = None,
    parent_run_id: int | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Start a run: a unit of your work the person can follow in Parley, with its own
    conversation. Report progress with report_status and end it with finish_run.
    Returns the run: {"id", "agent", "status", "title", "conversation_id", ...}.
    idempotency_key: optional, your own id for this call: sent again with the same key
    (within a day), it returns the first call's run and starts no second one.
    """

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        agent_of(caller)
        run = await runs.start_run(
            services.db, caller=caller, title=title, parent_run_id=parent_run_id
        )
        return run_json(run)

    return await guarded(ctx, op)


async def report_status(
    text: str,
    ctx: Context[Any],
    run_id: int | None = None,
    thread_id: int | None = None,
    progress: int | None = None,
) -> dict[str, Any]:
    """Tell the person (and, in a delegation thread, your parent agent) how your work is
    going: give your run_id, or the thread_id of a delegation you are working on.
    text: a short status line. progress: optional percentage, 0-100. Returns the run."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        agent_of(caller)
        if thread_id is not None:
            thread = await delegations.get_thread(services.db, caller=caller, thread_id=thread_id)
            target = thread.delegation.child_run_id
        else:
            target = run_id
        if target is None:
            raise ToolError("Give run_id (your run) or thread_id (a delegation you work on)")
        run, _message = await runs.report_status(
            services.db,
            caller=caller,
            run_id=target,
            text=text,
            progress=progress,
            max_chars=services.settings.max_message_chars,
        )
        return run_json(run)

    return await guarded(ctx, op)


async def finish_run(
    run_id: int,
    ctx: Context[Any],
    status: Literal["completed", "failed", "cancelled"] = "completed",
    summary: str | None = None,
) -> dict[str, Any]:
    """End your run with its outcome and an optional summary for the person. Its
    conversation becomes read-only. Returns the run."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        agent_of(caller)
        run = await runs.finish_run(
            services.db,
            caller=caller,
            run_id=run_id,
            status=status,
            summary=summary,
            max_chars=services.settings.max_message_chars,
        )
        return run_json(run)

    return await guarded(ctx, op)


async def ask_user(
    question: str,
    ctx: Context[Any],
    timeout_s: float | None = None,
    run_id: int | None = None,
    on_timeout: Literal["expire", "deny", "allow"] = "expire",
    remind_after: float | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Ask the person a question and wait for their answer. It goes into your run's
    conversation (run_id) or, without one, their inbox, and to their devices as a
    notification. timeout_s: how long the question stays open (default one hour).
    on_timeout: what happens if nobody answers by then: "expire" (you get
    {"status": "timed_out"}), "deny" (you get the answer "no", answered_by
    "parley:timeout") or "allow" (the answer "yes", answered_by "parley:timeout"); use
    "allow" only when going ahead unasked is safe. remind_after: minutes after which the
    person is reminded (another notification, then an email as long again later).
    This call waits at most 50 s; if the person has not answered by then it returns
    {"status": "waiting", "question_id"}: call wait_for_answer(question_id) until the
    status changes. (A client that takes MCP tasks gets a task instead, completed with
    this same result once the person answers.) Returns {"status": "answered", "answer",
    "answered_by", "question_id"}, or {"status": "timed_out"}: never act on an answer
    you did not get. idempotency_key: optional, your own id for this call: sent again
    with the same key (within a day), it waits on the first call's question and asks
    nothing twice.
    """

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        chosen = escalation.check(on_timeout, remind_after)  # bad input stores nothing
        conversation_id = await conversation_of(services, caller, run_id)
        return await ask(services, caller, conversation_id, question, timeout_s, chosen)

    return await guarded(ctx, op)


async def wait_for_answer(
    question_id: int, ctx: Context[Any], wait_s: float = 50
) -> dict[str, Any]:
    """Keep waiting for the answer to a question you asked with ask_user (also after a
    reconnect or a server restart: the question and its answer are stored). Waits at
    most wait_s seconds (at most 50). Returns the same shapes as ask_user."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        agent_of(caller)
        slot = current_slot()
        if slot is not None:  # the layer around the call waits (in-band, or as a task)
            found = await asking.get_question(services.db, caller=caller, question_id=question_id)
            slot.wait = WaitRef(WaitKind.question, found.question.id)
            slot.wait_s = wait_cap(services.settings, wait_s)
            return answer_view(found)
        state = await asking.wait_for_answer(
            services.db,
            services.waits,
            caller=caller,
            question_id=question_id,
            wait_s=wait_cap(services.settings, wait_s),
        )
        return answer_view(state)

    return await guarded(ctx, op)


TOOLS = (
    post_message,
    read_messages,
    start_run,
    report_status,
    finish_run,
    ask_user,
    wait_for_answer,
)


def register(server: MCPServer[Any]) -> None:
    add_tools(server, TOOLS)
