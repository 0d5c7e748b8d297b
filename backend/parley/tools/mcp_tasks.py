"""Waiting on a person or another agent as an MCP task (extension `io.modelcontextprotocol/tasks`,
SEP-2663), and tool calls that run once however often they are sent.

`WaitingCalls` wraps every `tools/call`:

- A call with a client call id (`_meta["claudecode/toolUseId"]`) or an `idempotency_key`
  argument is remembered (`call_memory`): a copy gets the first one's result, or waits on
  the first one's question or thread, and creates nothing.
- A tool that waits (`ask_user`, `ask_parent`, `wait_for_answer`; with tasks also
  `delegate_task`, `wait_for_child`) records the stored wait in its `Slot` and returns. A
  client that declared the tasks extension on this request (2026-07-28 era) then gets a
  `CreateTaskResult` at once; any other client the in-band wait of before (at most
  `PARLEY_TOOL_WAIT_MAX` seconds, then `{"status": "waiting", "question_id"}`).

A task is nothing but the PostgreSQL row that already holds the wait (the question, the
delegation), named by a task id sealed to its caller, so `tasks/get` and `tasks/cancel` work
on any instance, after any restart. `input_required` is never used: the one who answers is
the Parley person (or another agent), not the calling client's own user.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import require_client_extension
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequestParams,
    ClientCapabilities,
    GetTaskRequestParams,
    MissingRequiredClientCapabilityErrorData,
    RequestParams,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from parley.audit.channel import Channel, set_channel
from parley.auth import Caller
from parley.config import Settings
from parley.errors import ParleyError
from parley.questions.ask import get_question, wait_for_answer, withdraw
from parley.questions.status import QuestionStatus
from parley.runs import delegations
from parley.runs.schemas import delegation_json
from parley.services import Services
from parley.text import unstorable
from parley.tools import call_memory
from parley.tools.agent_tools import answer_view
from parley.tools.context import ToolContext, ready_context
from parley.tools.waiting import Slot, TaskIds, WaitKind, WaitRef, slot_for_call

log = logging.getLogger(__name__)

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
CALL_ID_META = "claudecode/toolUseId"
KEY_ARGUMENT = "idempotency_key"
# Tools that only read: sending them twice is harmless, so they are not remembered.
READ_ONLY = frozenset(
    {
        "list_tasks",
        "read_messages",
        "read_thread",
        "get_work_session",
        "wait_for_answer",
        "wait_for_child",
    }
)
TIMED_OUT = -32000  # a JSON-RPC error in the server range: the wait ended unanswered


class UpdateTaskParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any] | None = None


def iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def tool_result(view: dict[str, Any]) -> CallToolResult:
    """What the tool itself would have returned for `view` (structured, and as JSON text)."""
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(view, indent=2))],
        structured_content=view,
    )


def dumped(result: CallToolResult) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def wait_text(wait: WaitRef) -> str:
    return f"{wait.kind.value}{wait.ref}.{wait.after}"


def wait_of(text: str) -> WaitRef:
    head, after = text.split(".")
    return WaitRef(WaitKind(head[0]), int(head[1:]), int(after))


class _Request:
    """Lets the tools' caller resolver read a bare request context (outside a tool)."""

    def __init__(self, ctx: ServerRequestContext[Any, Any]) -> None:
        self.request_context = ctx


class WaitingCalls(Extension):
    identifier = TASKS_EXTENSION

    def __init__(self, settings: Settings) -> None:
        self.parley_settings = settings
        self.ids = TaskIds(settings.auth_secret)
        self.poll_ms = int(settings.mcp_task_poll_ms)

    # -- the extension's surface ------------------------------------------------------------

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", GetTaskRequestParams, self._get),
            MethodBinding("tasks/cancel", CancelTaskRequestParams, self._cancel),
            MethodBinding("tasks/update", UpdateTaskParams, self._update),
            # Not methods of this extension (SEP-2663 removed them); bound only so a request
            # without the extension hears what it lacks, like one for the methods above.
            MethodBinding("tasks/result", RequestParams, self._absent),
            MethodBinding("tasks/list", RequestParams, self._absent),
        )

    def _require(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """The `tasks/` methods belong to the extension (SEP-2663 reserves the prefix): a
        request that did not declare it is refused with -32021 and the capability it lacks
        (SEP-2133, the SDK's `require_client_extension`), whatever the task id. So is any
        2025-era request: the extension is not defined there, whatever its session said."""
        require_client_extension(ctx, TASKS_EXTENSION)
        if not self._declared(ctx):
            data = MissingRequiredClientCapabilityErrorData(
                required_capabilities=ClientCapabilities(extensions={TASKS_EXTENSION: {}})
            )
            raise MCPError(
                code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                message=f"{TASKS_EXTENSION} is declared per request from protocol 2026-07-28",
                data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
            )

    async def _absent(
        self, ctx: ServerRequestContext[Any, Any], params: RequestParams
    ) -> dict[str, Any]:
        self._require(ctx)
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")

    @staticmethod
    async def _context(ctx: ServerRequestContext[Any, Any]) -> ToolContext:
        """The server's tool context (`parley.tools.context`), as the tools see it."""
        return await ready_context(ctx.lifespan_context)

    async def _caller(self, ctx: ServerRequestContext[Any, Any]) -> Caller:
        caller = (await self._context(ctx)).caller(_Request(ctx))  # type: ignore[arg-type]
        set_channel(Channel("mcp"))  # a withdrawal's channel, for the audit trail
        return caller

    async def _open(
        self, ctx: ServerRequestContext[Any, Any], task_id: str
    ) -> tuple[Caller, WaitRef]:
        try:
            caller = await self._caller(ctx)
            return caller, self.ids.open(caller, task_id)
        except (ParleyError, ToolError) as exc:
            raise MCPError(code=INVALID_PARAMS, message="Task not found") from exc

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: GetTaskRequestParams
    ) -> dict[str, Any]:
        self._require(ctx)
        caller, wait = await self._open(ctx, params.task_id)
        services = (await self._context(ctx)).services
        return await self._task(services, caller, wait, params.task_id)

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: CancelTaskRequestParams
    ) -> dict[str, Any]:
        """Withdraw the question (the person sees it closed) or cancel the delegation."""
        self._require(ctx)
        caller, wait = await self._open(ctx, params.task_id)
        services = (await self._context(ctx)).services
        settings = self.parley_settings
        try:
            if wait.kind is WaitKind.question:
                await withdraw(services.db, caller=caller, question_id=wait.ref)
            else:
                state = await delegations.get_thread(services.db, caller=caller, thread_id=wait.ref)
                if state.delegation.status not in delegations.CLOSED:
                    await delegations.close_thread(
                        services.db,
                        caller=caller,
                        thread_id=wait.ref,
                        outcome="cancelled",
                        text=None,
                        max_chars=settings.max_message_chars,
                        question_timeout=settings.question_timeout,
                    )
        except ParleyError as exc:
            raise MCPError(code=INVALID_PARAMS, message=exc.message) from exc
        return {}

    async def _update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateTaskParams
    ) -> dict[str, Any]:
        """Parley's tasks never ask the client for input: a known task acks and ignores it."""
        self._require(ctx)
        caller, wait = await self._open(ctx, params.task_id)
        services = (await self._context(ctx)).services
        await self._task(
            services, caller, wait, params.task_id
        )  # a task gone from the database: error
        return {}

    # -- what a task is: the row that holds the wait ----------------------------------------

    async def _task(
        self, services: Services, caller: Caller, wait: WaitRef, task_id: str
    ) -> dict[str, Any]:
        try:
            if wait.kind is WaitKind.question:
                return await self._question_task(services, caller, wait, task_id)
            return await self._thread_task(services, caller, wait, task_id)
        except ParleyError as exc:  # the row is gone (its conversation was deleted)
            raise MCPError(code=INVALID_PARAMS, message="Task not found") from exc

    async def _question_task(
        self, services: Services, caller: Caller, wait: WaitRef, task_id: str
    ) -> dict[str, Any]:
        state = await get_question(services.db, caller=caller, question_id=wait.ref)
        created = state.question.created_at
        task: dict[str, Any] = {
            "taskId": task_id,
            "createdAt": iso(created),
            "lastUpdatedAt": iso(created),
            "ttlMs": int((state.timeout_at - created).total_seconds() * 1000),
            "pollIntervalMs": self.poll_ms,
        }
        if state.status == QuestionStatus.answered and state.answer is not None:
            task.update(
                status="completed",
                statusMessage=f"answered by {state.answer.author}",
                lastUpdatedAt=iso(state.answer.created_at),
                result=dumped(tool_result(answer_view(state))),
            )
        elif state.status == QuestionStatus.timed_out:
            task.update(
                status="failed",
                statusMessage="Nobody answered in time; do not assume an answer.",
                lastUpdatedAt=iso(state.timeout_at),
                error={
                    "code": TIMED_OUT,
                    "message": f"Question {wait.ref} timed out unanswered",
                    "data": {"question_id": wait.ref, "status": "timed_out"},
                },
            )
        elif state.status == QuestionStatus.closed:
            task.update(status="cancelled", statusMessage="The question was withdrawn")
        else:
            task.update(status="working", statusMessage=f"waiting for {caller.user_id}")
        return task

    async def _thread_task(
        self, services: Services, caller: Caller, wait: WaitRef, task_id: str
    ) -> dict[str, Any]:
        state = await delegations.get_thread(services.db, caller=caller, thread_id=wait.ref)
        thread, asked = state.delegation, state.open_question
        task: dict[str, Any] = {
            "taskId": task_id,
            "createdAt": iso(thread.created_at),
            "lastUpdatedAt": iso(thread.closed_at or thread.claimed_at or thread.created_at),
            "ttlMs": None,
            "pollIntervalMs": self.poll_ms,
        }
        view = delegation_json(thread, asked)
        if thread.status == "timed_out":
            task.update(
                status="failed",
                statusMessage=f"No {thread.child_agent} picked this up in time",
                error={
                    "code": TIMED_OUT,
                    "message": f"Delegation {wait.ref} timed out",
                    "data": {"thread_id": wait.ref, "status": "timed_out"},
                },
            )
        elif thread.status == "cancelled":
            task.update(status="cancelled", statusMessage="The delegation was cancelled")
        elif thread.status in delegations.CLOSED:
            task.update(
                status="completed",
                statusMessage=f"{thread.child_agent}: {thread.status}",
                result=dumped(tool_result(view)),
            )
        elif asked is not None and asked.id > wait.after:
            task.update(
                status="completed",
                statusMessage=f"{thread.child_agent} asks: answer_child({wait.ref}, {asked.id})",
                lastUpdatedAt=iso(asked.created_at),
                result=dumped(tool_result(view)),
            )
        else:
            who = f"a {thread.child_agent} to pick it up" if thread.status == "pending" else None
            task.update(status="working", statusMessage=f"waiting for {who or thread.child_agent}")
        return task

    # -- tools/call ---------------------------------------------------------------------------

    def _declared(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return False  # the extension is not defined for the 2025 revisions
        capabilities = ctx.session.client_capabilities
        return bool(
            capabilities and capabilities.extensions and TASKS_EXTENSION in capabilities.extensions
        )

    @staticmethod
    def _key(params: CallToolRequestParams) -> str | None:
        if params.name in READ_ONLY:
            return None
        arguments = params.arguments or {}
        given = arguments.get(KEY_ARGUMENT)
        if isinstance(given, str) and given.strip():
            return "k:" + given.strip()[: call_memory.KEY_MAX - 2]
        call_id = (params.meta or {}).get(CALL_ID_META)
        if isinstance(call_id, str) and call_id:
            return "c:" + call_id[: call_memory.KEY_MAX - 2]
        return None

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        tasks = self._declared(ctx)
        key = self._key(params)
        services = (await self._context(ctx)).services
        if key is not None and (problem := unstorable(key)) is not None:
            # Remembered before the tool runs, so refused here, as the tool would refuse it.
            text = f"{KEY_ARGUMENT} (or the call's id) {problem}"
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        caller: Caller | None = None
        if key is not None:
            try:
                caller = await self._caller(ctx)
            except ToolError:
                key = None  # the tool answers the missing identity itself
        if key is not None and caller is not None:
            seen = await call_memory.claim(
                services.db,
                caller=caller,
                key=key,
                tool=params.name,
                stale_s=self.parley_settings.tool_wait_max + 60,
            )
            if seen is not None:
                return await self._replay(services, caller, key, params.name, seen, tasks)
        slot = Slot(tasks=tasks)
        try:
            with slot_for_call(slot):
                result = await call_next(ctx)
        except BaseException:
            if key is not None and caller is not None:
                await call_memory.release(services.db, caller=caller, key=key)
            raise
        if slot.wait is None:
            if key is not None and caller is not None and isinstance(result, CallToolResult):
                await call_memory.finish(services.db, caller=caller, key=key, result=dumped(result))
            return result
        caller = caller or await self._caller(ctx)
        if key is not None:
            await call_memory.record_wait(
                services.db, caller=caller, key=key, wait=wait_text(slot.wait)
            )
        return await self._settle(services, caller, slot.wait, tasks, slot.wait_s)

    async def _replay(
        self,
        services: Services,
        caller: Caller,
        key: str,
        tool: str,
        seen: call_memory.Remembered,
        tasks: bool,
    ) -> HandlerResult:
        """A copy of a call already made: the first one's answer, created nothing anew."""
        if seen.tool != tool:
            return CallToolResult(
                content=[
                    TextContent(type="text", text=f"This call id was already used for {seen.tool}")
                ],
                is_error=True,
            )
        if seen.result is None and seen.wait is None:
            found = await call_memory.settled(
                services.db,
                caller=caller,
                key=key,
                tool=tool,
                within=self.parley_settings.tool_wait_max,
            )
            if found is None:
                return CallToolResult(
                    content=[
                        TextContent(
                            type="text",
                            text="The first copy of this call is still running; call again",
                        )
                    ],
                    is_error=True,
                )
            seen = found
        if seen.result is not None:
            return CallToolResult.model_validate(seen.result)
        assert seen.wait is not None
        wait = wait_of(seen.wait)
        return await self._settle(services, caller, wait, tasks, self.parley_settings.tool_wait_max)

    async def _settle(
        self, services: Services, caller: Caller, wait: WaitRef, tasks: bool, wait_s: float
    ) -> HandlerResult:
        """The call's answer: a task for a client that takes one; else the in-band wait."""
        if tasks:
            task = await self._task(services, caller, wait, self.ids.seal(caller, wait))
            log.info("a wait for %s answered as task %s", caller.user_id, task["taskId"])
            for detail in ("result", "error", "inputRequests"):
                task.pop(detail, None)
            return {"resultType": "task", **task}
        if wait.kind is WaitKind.question:
            try:
                state = await wait_for_answer(
                    services.db,
                    services.waits,
                    caller=caller,
                    question_id=wait.ref,
                    wait_s=wait_s,
                )
            except ParleyError as exc:
                return CallToolResult(
                    content=[TextContent(type="text", text=exc.message)], is_error=True
                )
            return tool_result(answer_view(state))
        state_t = await delegations.get_thread(services.db, caller=caller, thread_id=wait.ref)
        return tool_result(delegation_json(state_t.delegation, state_t.open_question))
