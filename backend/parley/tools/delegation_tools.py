"""Delegation tools: a parent agent hands work to another agent in a typed thread; the child
picks it up, asks, reports and ends it. Every thread tool takes the `thread_id`."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from parley.auth import Caller
from parley.conversations import latest_message_id
from parley.runs import delegations
from parley.runs.messages import post_message
from parley.runs.schemas import delegation_json
from parley.schemas import message_json
from parley.tools.agent_tools import agent_of, ask, read, wait_cap
from parley.tools.annotations import add_tools
from parley.tools.context import guarded, services_of
from parley.tools.waiting import WaitKind, WaitRef, current_slot


def view(state: delegations.ThreadState) -> dict[str, Any]:
    return delegation_json(state.delegation, state.open_question)


async def delegate_task(
    run_id: int,
    agent: str,
    task: str,
    ctx: Context[Any],
    timeout_s: float = 3600,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Hand a task to another agent (by its name) from your run (run_id from start_run).
    One of its processes picks it up with next_delegation within timeout_s seconds, or
    the delegation times out. Follow it with wait_for_child / read_thread.
    Returns {"thread_id", "child_run_id", "status": "pending", ...}. (A client that
    takes MCP tasks gets a task instead, completed with the delegation once it closes or
    the child asks you something.) idempotency_key: optional, your own id for this
    call: sent again with the same key (within a day), it returns the first call's
    delegation and delegates nothing twice."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        made = await delegations.delegate(
            services.db,
            caller=caller,
            run_id=run_id,
            agent=agent,
            task=task,
            timeout_s=timeout_s,
            max_chars=services.settings.max_message_chars,
        )
        slot = current_slot()
        if slot is not None and slot.tasks:  # the task waits for the child
            after = await latest_message_id(
                services.db, user_id=caller.user_id, conversation_id=made.thread_id
            )
            slot.wait = WaitRef(WaitKind.thread, made.thread_id, after)
        return delegation_json(made)

    return await guarded(ctx, op)


async def next_delegation(
    ctx: Context[Any], wait_s: float = 50, claimer: str | None = None
) -> dict[str, Any]:
    """Pick up the next task delegated to you (your agent name): it is yours alone from
    now on. Waits up to wait_s seconds (at most 50) for one. Returns {"delegation":
    {"thread_id", "task", "parent_agent", "child_run_id", ...}} or {"delegation": null}.
    Act on it soon (read_thread, report_status, ask_parent or complete): until you do,
    calling again with the same claimer (a key of your own, e.g. a random id per process)
    returns it again, in case the answer never reached you; unacted on for long (60 s by
    default) it goes back to the queue for another of your processes."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        found = await delegations.next_delegation(
            services.db,
            services.waits,
            caller=caller,
            wait_s=wait_cap(services.settings, wait_s),
            lease_s=services.settings.claim_lease_seconds,
            claimer=claimer,
        )
        return {"delegation": delegation_json(found) if found else None}

    return await guarded(ctx, op)


async def ask_parent(
    thread_id: int,
    question: str,
    ctx: Context[Any],
    timeout_s: float | None = None,
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Ask the agent that delegated this thread to you (or the person) a question and
    wait. Waits at most 50 s, then returns {"status": "waiting", "question_id"}: call
    wait_for_answer(question_id). Returns {"status": "answered", "answer", "answered_by"}
    or {"status": "timed_out"}. (A client that takes MCP tasks gets a task instead.)
    idempotency_key: optional, your own id for this call: sent again with the same key
    (within a day), it waits on the first call's question and asks nothing twice."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        return await ask(services, caller, thread_id, question, timeout_s)

    return await guarded(ctx, op)


async def answer_child(
    thread_id: int,
    question_id: int,
    text: str,
    ctx: Context[Any],
    idempotency_key: str | None = None,
) -> dict[str, Any]:
    """Answer the question your child agent asked in a thread you delegated (question_id
    from wait_for_child or read_thread). Only an open question of your child's is taken;
    otherwise (already answered, timed out, not a question) nothing is stored and you get
    an error saying why. Returns the stored answer message. idempotency_key: optional,
    your own id for this call: sent again with the same key, it returns the first
    call's answer."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        agent_of(caller)
        posted = await post_message(
            services.db,
            caller=caller,
            conversation_id=thread_id,
            text=text,
            kind="answer",
            reply_to=question_id,
            max_chars=services.settings.max_message_chars,
        )
        return message_json(posted.message)

    return await guarded(ctx, op)


async def read_thread(
    thread_id: int, ctx: Context[Any], after: int = 0, wait_s: float = 0
) -> dict[str, Any]:
    """Messages of a delegation thread with an id greater than `after`, oldest first
    (kinds: delegation, question, answer, status, completion, error, escalation, message).
    With wait_s (at most 50) waits for the first new one. Returns {"messages", "last_id"}.
    """

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        state = await delegations.get_thread(services.db, caller=caller, thread_id=thread_id)
        await delegations.heard_from(
            services.db,
            caller=caller,
            thread=state.delegation,
            wait_s=wait_cap(services.settings, wait_s),
        )
        return await read(services, caller, thread_id, after, wait_s)

    return await guarded(ctx, op)


async def wait_for_child(
    thread_id: int, ctx: Context[Any], timeout_s: float = 50
) -> dict[str, Any]:
    """Wait (at most 50 s per call) until a thread you delegated closes (status
    completed, failed, escalated, cancelled or timed_out, with its result) or its child
    asks you something (open_question: answer it with answer_child). Call it for each of
    several children; while you wait, your run counts as active. Returns the delegation
    with "status", "result", "open_question"."""

    services = await services_of(ctx)

    async def op(caller: Caller) -> dict[str, Any]:
        slot = current_slot()
        if slot is not None and slot.tasks:  # the task waits for the child
            found = await delegations.get_thread(services.db, caller=caller, thread_id=thread_id)
            await delegations.heard_from(services.db, caller=caller, thread=found.delegation)
            asked = found.open_question
            after = (
                asked.id - 1
                if asked is not None
                else await latest_message_id(
                    services.db, user_id=caller.user_id, conversation_id=thread_id
                )
            )
            slot.wait = WaitRef(WaitKind.thread, thread_id, after)
            return view(found)
        state = await delegations.wait_for_child(
            services.db,
            services.hub,
            caller=caller,
            thread_id=thread_id,
            wait_s=wait_cap(services.settings, timeout_s),
        )
        return view(state)

    return await guarded(ctx, op)


async def _close(
    ctx: Context[Any], thread_id: int, text: str | None, outcome: str
) -> dict[str, Any]:
    services = await services_of(ctx)
    settings = services.settings

    async def op(caller: Caller) -> dict[str, Any]:
        closed = await delegations.close_thread(
            services.db,
            caller=caller,
            thread_id=thread_id,
            outcome=outcome,
            text=text,
            max_chars=settings.max_message_chars,
            question_timeout=settings.question_timeout,
        )
        return delegation_json(closed)

    return await guarded(ctx, op)


async def complete(thread_id: int, ctx: Context[Any], text: str | None = None) -> dict[str, Any]:
    """Finish a thread delegated to you with its result (text). The thread closes and your child run completes. Returns the delegation."""  # noqa: E501 (the text models read, on one line)
    return await _close(ctx, thread_id, text, "completed")


async def fail(thread_id: int, ctx: Context[Any], text: str | None = None) -> dict[str, Any]:
    """End a thread delegated to you as failed; text says why. Returns the delegation."""
    return await _close(ctx, thread_id, text, "failed")


async def escalate(thread_id: int, ctx: Context[Any], text: str | None = None) -> dict[str, Any]:
    """Hand a thread delegated to you back to the person: text is the reason; it lands in their inbox as a question. The thread closes. Returns the delegation."""  # noqa: E501
    return await _close(ctx, thread_id, text, "escalated")


async def cancel_delegation(
    thread_id: int, ctx: Context[Any], text: str | None = None
) -> dict[str, Any]:
    """Cancel a thread you delegated; the child's run is cancelled. Returns the delegation."""
    return await _close(ctx, thread_id, text, "cancelled")


TOOLS = (
    delegate_task,
    next_delegation,
    ask_parent,
    answer_child,
    read_thread,
    wait_for_child,
    complete,
    fail,
    escalate,
    cancel_delegation,
)


def register(server: MCPServer[Any]) -> None:
    add_tools(server, TOOLS)
