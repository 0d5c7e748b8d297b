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
from parley.tools.agent_tools import AgentToolDeps, Helpers, agent_of
from parley.tools.waiting import WaitKind, WaitRef, current_slot


def register_delegation_tools(server: MCPServer, deps: AgentToolDeps) -> None:
    db, settings = deps.db, deps.settings
    helpers = Helpers(deps)
    guarded, wait_cap = helpers.guarded, helpers.wait_cap

    def view(state: delegations.ThreadState) -> dict[str, Any]:
        return delegation_json(state.delegation, state.open_question)

    @server.tool()
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

        async def op(caller: Caller) -> dict[str, Any]:
            made = await delegations.delegate(
                db,
                caller=caller,
                run_id=run_id,
                agent=agent,
                task=task,
                timeout_s=timeout_s,
                max_chars=settings.max_message_chars,
            )
            slot = current_slot()
            if slot is not None and slot.tasks:  # the task waits for the child
                after = await latest_message_id(
                    db, user_id=caller.user_id, conversation_id=made.thread_id
                )
                slot.wait = WaitRef(WaitKind.thread, made.thread_id, after)
            return delegation_json(made)

        return await guarded(ctx, op)

    @server.tool()
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

        async def op(caller: Caller) -> dict[str, Any]:
            found = await delegations.next_delegation(
                db,
                deps.waits,
                caller=caller,
                wait_s=wait_cap(wait_s),
                lease_s=settings.claim_lease_seconds,
                claimer=claimer,
            )
            return {"delegation": delegation_json(found) if found else None}

        return await guarded(ctx, op)

    @server.tool()
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

        async def op(caller: Caller) -> dict[str, Any]:
            return await helpers.ask(caller, thread_id, question, timeout_s)

        return await guarded(ctx, op)

    @server.tool()
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

        async def op(caller: Caller) -> dict[str, Any]:
            agent_of(caller)
            posted = await post_message(
                db,
                caller=caller,
                conversation_id=thread_id,
                text=text,
                kind="answer",
                reply_to=question_id,
                max_chars=settings.max_message_chars,
            )
            return message_json(posted.message)

        return await guarded(ctx, op)

    @server.tool()
    async def read_thread(
        thread_id: int, ctx: Context[Any], after: int = 0, wait_s: float = 0
    ) -> dict[str, Any]:
        """Messages of a delegation thread with an id greater than `after`, oldest first
        (kinds: delegation, question, answer, status, completion, error, escalation, message).
        With wait_s (at most 50) waits for the first new one. Returns {"messages", "last_id"}.
        """

        async def op(caller: Caller) -> dict[str, Any]:
            state = await delegations.get_thread(db, caller=caller, thread_id=thread_id)
            await delegations.heard_from(
                db, caller=caller, thread=state.delegation, wait_s=wait_cap(wait_s)
            )
            return await helpers.read(caller, thread_id, after, wait_s)

        return await guarded(ctx, op)

    @server.tool()
    async def wait_for_child(
        thread_id: int, ctx: Context[Any], timeout_s: float = 50
    ) -> dict[str, Any]:
        """Wait (at most 50 s per call) until a thread you delegated closes (status
        completed, failed, escalated, cancelled or timed_out, with its result) or its child
        asks you something (open_question: answer it with answer_child). Call it for each of
        several children; while you wait, your run counts as active. Returns the delegation
        with "status", "result", "open_question"."""

        async def op(caller: Caller) -> dict[str, Any]:
            slot = current_slot()
            if slot is not None and slot.tasks:  # the task waits for the child
                found = await delegations.get_thread(db, caller=caller, thread_id=thread_id)
                await delegations.heard_from(db, caller=caller, thread=found.delegation)
                asked = found.open_question
                after = (
                    asked.id - 1
                    if asked is not None
                    else await latest_message_id(
                        db, user_id=caller.user_id, conversation_id=thread_id
                    )
                )
                slot.wait = WaitRef(WaitKind.thread, thread_id, after)
                return view(found)
            state = await delegations.wait_for_child(
                db, deps.hub, caller=caller, thread_id=thread_id, wait_s=wait_cap(timeout_s)
            )
            return view(state)

        return await guarded(ctx, op)

    def closer(outcome: str, doc: str) -> None:
        async def close(
            thread_id: int, ctx: Context[Any], text: str | None = None
        ) -> dict[str, Any]:
            async def op(caller: Caller) -> dict[str, Any]:
                closed = await delegations.close_thread(
                    db,
                    caller=caller,
                    thread_id=thread_id,
                    outcome=outcome,
                    text=text,
                    max_chars=settings.max_message_chars,
                    question_timeout=settings.question_timeout,
                )
                return delegation_json(closed)

            return await guarded(ctx, op)

        close.__doc__ = doc
        name = {"completed": "complete", "failed": "fail", "escalated": "escalate"}.get(
            outcome, "cancel_delegation"
        )
        server.tool(name=name)(close)

    closer(
        "completed",
        "Finish a thread delegated to you with its result (text). The thread "
        "closes and your child run completes. Returns the delegation.",
    )
    closer(
        "failed", "End a thread delegated to you as failed; text says why. Returns the delegation."
    )
    closer(
        "escalated",
        "Hand a thread delegated to you back to the person: text is the reason; "
        "it lands in their inbox as a question. The thread closes. Returns the delegation.",
    )
    closer(
        "cancelled",
        "Cancel a thread you delegated; the child's run is cancelled. Returns the delegation.",
    )
