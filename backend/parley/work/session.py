"""One live Claude Code process for one work conversation, owned by one task.

claude-agent-sdk's client must be used from the task that connected it, so a session is a
task that connects, serves the conversation's prompts one at a time, and disconnects;
others talk to it through its queue, `interrupt()` and `kill()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    ResultMessage,
    SystemMessage,
)
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk.types import (
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from parley import events
from parley.conversations import StoredMessage
from parley.events import Emit
from parley.models import RunStatus
from parley.runs import questions
from parley.runs.questions import Decision
from parley.schemas import message_json
from parley.work import permissions, proctree, store
from parley.work.events import delta_text, outputs

if TYPE_CHECKING:
    from parley.work.manager import WorkManager

log = logging.getLogger(__name__)
# The SDK logs an error whenever its process dies, Parley's own End and shutdown included;
# the session sees the same failure through its client and reports real ones itself.
logging.getLogger("claude_agent_sdk._internal.query").setLevel(logging.CRITICAL)

CONNECT_SECONDS = 30.0
_MODES = {"ask": "default", "edits": "acceptEdits", "none": "bypassPermissions"}


def _defers(result: ResultMessage) -> bool:
    """The prompt stopped at a tool call waiting for the person's permission."""
    return result.stop_reason == "tool_deferred" and result.deferred_tool_use is not None


def session_tag(instance: str, run_id: int) -> str:
    return f"{instance}/{run_id}"


class SessionFailed(Exception):
    """The process could not start, or died: the run fails with this message."""


@dataclass
class Prompt:
    """One prompt and whoever follows it: the turn runner attaches its `emit` to see the
    prompt's events; events from before it attached wait in the backlog (stored messages
    only: live text before that reached the watchers, and is stored anyway)."""

    text: str
    future: asyncio.Future[ResultMessage] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    listener: Emit | None = None
    backlog: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Set by Stop: the interrupted prompt's result is a stop the person asked for, not a failure.
    stopped: bool = False

    def publish(self, event: str, data: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(event, data)
        else:
            self.backlog.append((event, data))

    def attach(self, emit: Emit) -> None:
        for event, data in self.backlog:
            emit(event, data)
        self.backlog.clear()
        self.listener = emit


@dataclass
class Resume:
    """A stored decision to apply to a deferred tool call when the session resumes."""

    tool_use_id: str
    answer: Decision


class Session:
    def __init__(
        self,
        manager: WorkManager,
        *,
        conversation_id: int,
        user_id: str,
        run_id: int,
        cwd: Path,
        cli: Path,
        resume: str | None,
        allowed_tools: list[str],
        decision: Resume | None = None,
    ) -> None:
        self.manager = manager
        self.db = manager.db
        self.settings = manager.settings
        self.conversation_id = conversation_id
        self.user_id = user_id
        self.run_id = run_id
        # In the environment of the process and of everything it starts: how `kill` finds
        # them all, even a background command whose shell has exited.
        self.tag = session_tag(manager.instance, run_id)
        self.cwd = cwd
        self.cli = cli
        self.session_id = resume
        self.allowed_tools = list(allowed_tools)
        self.decision = decision
        self.queue: asyncio.Queue[Prompt] = asyncio.Queue()
        self.status = "starting"
        self.pid: int | None = None
        self.client: ClaudeSDKClient | None = None
        self.ending: RunStatus | None = None  # set when Parley itself ends the session
        self.end_error: str | None = None
        self.last_activity = time.monotonic()
        self._questions: dict[str, int] = {}  # tool_use_id -> question id
        self._deferred: dict[str, Any] | None = None
        self._parking = asyncio.Event()  # set at shutdown: defer the call being asked about
        self.current: Prompt | None = None
        self._finishing = False
        self._stderr: list[str] = []
        self.task: asyncio.Task[None] | None = None

    # -- control from other tasks --------------------------------------------------

    def submit(self, text: str) -> Prompt:
        self.last_activity = time.monotonic()
        prompt = Prompt(text)
        self.queue.put_nowait(prompt)
        return prompt

    async def interrupt(self) -> bool:
        if self.status not in ("working", "waiting_permission") or self.client is None:
            return False
        if self.current is not None:
            self.current.stopped = True
        await self.client.interrupt()
        return True

    async def kill(self, status: RunStatus, error: str | None = None) -> None:
        """End the session and every process it started."""
        self.ending = status
        self.end_error = error
        await asyncio.to_thread(proctree.kill_tree, self.pid, self.tag)
        # The task may have seen the exit and be storing how it ended (or parking its
        # call): let it finish, and return only once it has.
        if self.task is not None and not self.task.done():
            if not self._finishing:
                self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(self.task)

    # -- the owner task ------------------------------------------------------------

    async def run(self) -> None:
        outcome, error = RunStatus.completed, None
        try:
            if self.decision is not None:
                await self._apply_decision(self.decision)
            if self._deferred is None:
                await self._serve()
        except asyncio.CancelledError:
            outcome, error = self.ending or RunStatus.cancelled, self.end_error
        except SessionFailed as failure:
            outcome, error = RunStatus.failed, str(failure)
        except Exception as exc:  # anything else the SDK raises: the run fails, visibly
            log.exception("work session %s failed", self.conversation_id)
            outcome, error = RunStatus.failed, f"Claude Code failed: {exc}"
        finally:
            self._finishing = True
            if self.ending is not None:  # Parley ended it: whatever the process did then
                outcome, error = self.ending, self.end_error
            await self._finish(outcome, error)

    async def _finish(self, outcome: RunStatus, error: str | None) -> None:
        if self.ending is None:
            await asyncio.to_thread(proctree.kill_tree, self.pid, self.tag)
        try:
            if self._deferred is not None:
                await self.manager.parked(self, self._deferred)
                return
            failed = outcome is RunStatus.failed and error
            await store.end_run(
                self.db,
                self.run_id,
                status=outcome,
                error=error,
                error_message=(self.conversation_id, self.user_id) if failed else None,
            )
            await self._set_status("ended")
        finally:
            # Only now does a waiting client get its answer: the failure is on record first.
            self._fail_waiting(error or "The work session ended")
            self.manager.forget(self)

    def _fail_waiting(self, reason: str) -> None:
        if self.current is not None and not self.current.future.done():
            self.current.future.set_exception(SessionFailed(reason))
        while not self.queue.empty():
            prompt = self.queue.get_nowait()
            if not prompt.future.done():
                prompt.future.set_exception(SessionFailed(reason))

    async def _serve(self) -> None:
        client = ClaudeSDKClient(self._options(resume=self.session_id))
        self.client = client
        try:
            try:
                async with asyncio.timeout(CONNECT_SECONDS):
                    await client.connect()
            except Exception as exc:
                raise SessionFailed(self._start_error(exc)) from exc
            process = client._transport._process  # type: ignore[union-attr]
            self.pid = process.pid
            await store.set_run(self.db, self.run_id, pid=self.pid, status="running")
            exited = asyncio.create_task(process.wait())
            try:
                await self._loop(client, exited)
            finally:
                exited.cancel()
        finally:
            self.client = None
            with contextlib.suppress(Exception):
                await client.disconnect()

    async def _loop(self, client: ClaudeSDKClient, exited: asyncio.Task[Any]) -> None:
        await self._set_status("idle")
        while True:
            idle_left = self.settings.work_idle_timeout - (time.monotonic() - self.last_activity)
            getter = asyncio.create_task(self.queue.get())
            done, _ = await asyncio.wait(
                {getter, exited}, timeout=max(0.0, idle_left), return_when=asyncio.FIRST_COMPLETED
            )
            if getter not in done:
                getter.cancel()
                if exited in done:
                    raise SessionFailed(self._exit_error(exited.result()))
                if time.monotonic() - self.last_activity >= self.settings.work_idle_timeout:
                    self.ending = RunStatus.timed_out
                    self.end_error = "Ended after being idle"
                    await self._store(
                        "The work session ended after being idle.", {"type": "status"}
                    )
                    raise asyncio.CancelledError
                continue
            prompt = getter.result()
            await self._prompt(client, prompt, exited)
            if self._deferred is not None:
                return

    async def _prompt(
        self, client: ClaudeSDKClient, prompt: Prompt, exited: asyncio.Task[Any]
    ) -> None:
        await self._set_status("working")
        result: ResultMessage | None = None
        self.current = prompt
        try:
            await client.query(prompt.text)
            async for message in client.receive_response():
                await self.handle(message)
                if isinstance(message, ResultMessage):
                    result = message
        except Exception as exc:
            # The prompt stays `current`: `_finish` answers its waiting client once the failure
            # is stored.
            await asyncio.sleep(0.2)  # let the exit be seen
            if exited.done():
                raise SessionFailed(self._exit_error(exited.result())) from exc
            raise
        if result is None:
            await asyncio.sleep(0.2)
            raise SessionFailed(self._exit_error(exited.result()) if exited.done() else "no result")
        self.current = None
        if not prompt.future.done():
            prompt.future.set_result(result)
        self.last_activity = time.monotonic()

    # -- messages ------------------------------------------------------------------

    async def handle(self, message: Any) -> None:
        text = delta_text(message)
        prompt = self.current
        if text is not None:
            if prompt is not None and prompt.listener is not None:
                prompt.listener(events.DELTA, {"text": text})  # the runner publishes it
            else:
                self.manager.notifier.publish_live(
                    self.conversation_id, events.DELTA, {"text": text}
                )
            return
        if isinstance(message, SystemMessage) and message.subtype == "init":
            session_id = message.data.get("session_id")
            if session_id and session_id != self.session_id:
                self.session_id = session_id
                await store.update_session(self.db, self.conversation_id, session_id=session_id)
            return
        if isinstance(message, ResultMessage) and not _defers(message):
            # Idle before the result is stored: whoever sees the result sees the session free.
            await self._set_status("idle")
        for output in outputs(message, stopped=prompt is not None and prompt.stopped):
            stored = await self._store(output.content, output.meta, error=output.error)
            if prompt is not None:
                prompt.publish(events.MESSAGE, message_json(stored))
            if output.meta["type"] == "text":  # its text is stored: no longer in flight
                self.manager.notifier.publish_live(self.conversation_id, events.TURN_END, {})
        if isinstance(message, ResultMessage):
            await self._on_result(message)

    async def _on_result(self, message: ResultMessage) -> None:
        self.manager.notifier.publish_live(self.conversation_id, events.TURN_END, {})
        if message.total_cost_usd:
            await store.add_cost(self.db, self.conversation_id, message.total_cost_usd)
        if message.session_id and message.session_id != self.session_id:
            self.session_id = message.session_id
            await store.update_session(self.db, self.conversation_id, session_id=self.session_id)
        deferred = message.deferred_tool_use
        if not _defers(message) or deferred is None:
            # The prompt is over: whatever it asked and got no answer for takes none now.
            await questions.close_unanswered(self.db, run_id=self.run_id)
        if _defers(message) and deferred is not None:
            question_id = self._questions.get(deferred.id)
            if question_id is None:  # deferred by a resume's hook: nobody was asked yet
                question = await permissions.ask(
                    self.db,
                    conversation_id=self.conversation_id,
                    user_id=self.user_id,
                    tool=deferred.name,
                    tool_input=deferred.input,
                    tool_use_id=deferred.id,
                )
                question_id = question.id
            self._deferred = {
                "question_id": question_id,
                "tool_use_id": deferred.id,
                "tool": deferred.name,
                "input": deferred.input,
                "session_id": self.session_id,
            }
            await questions.close_unanswered(self.db, run_id=self.run_id, keep=[question_id])

    async def _store(
        self, content: str, meta: dict[str, Any], *, error: bool = False
    ) -> StoredMessage:
        return await store.store(
            self.db,
            conversation_id=self.conversation_id,
            user_id=self.user_id,
            content=content,
            meta=meta,
            error=error,
        )

    async def _set_status(self, status: str) -> None:
        self.status = status
        await store.update_session(self.db, self.conversation_id, status=status)

    # -- permissions ---------------------------------------------------------------

    async def _pre_tool_use(self, data: Any, tool_use_id: str | None, _ctx: Any) -> Any:
        tool = str(data.get("tool_name", ""))
        tool_input = data.get("tool_input") or {}
        tool_use_id = tool_use_id or data.get("tool_use_id")
        if not permissions.needs_asking(self.settings, tool, self.allowed_tools):
            return {}
        answer = await self._ask(tool, tool_input, tool_use_id)
        if answer is None:
            return permissions.hook_output("defer", "Waiting for the person to answer")
        if answer is Decision.deny:
            return permissions.hook_output("deny", permissions.DENIED)
        return permissions.hook_output("allow")

    async def _can_use_tool(
        self, tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        """What Claude Code itself asks about (the hook asked about the rest): answered
        in-band only; no answer in time is a denial, and its question closes."""
        if tool in self.allowed_tools or self.settings.work_permission_mode == "none":
            return PermissionResultAllow()
        answer = await self._ask(tool, tool_input, context.tool_use_id)
        if answer is None:
            question_id = self._questions.get(context.tool_use_id or "")
            if question_id is not None:
                await permissions.timed_out(self.db, question_id=question_id)
            return PermissionResultDeny(message="No answer in time")
        if answer is Decision.deny:
            return PermissionResultDeny(message=permissions.DENIED)
        return PermissionResultAllow()

    def park(self) -> bool:
        """At shutdown: a call waiting in-band for the person is deferred now (parked with
        its question, as after a long wait) instead of dying with the process, so an answer
        after the restart still runs it. True if the session was waiting."""
        if self.status != "waiting_permission":
            return False
        self._parking.set()
        return True

    async def _ask(
        self, tool: str, tool_input: dict[str, Any], tool_use_id: str | None
    ) -> Decision | None:
        question_id = self._questions.get(tool_use_id or "")
        if question_id is None:
            question = await permissions.ask(
                self.db,
                conversation_id=self.conversation_id,
                user_id=self.user_id,
                tool=tool,
                tool_input=tool_input,
                tool_use_id=tool_use_id,
            )
            question_id = question.id
            if tool_use_id:
                self._questions[tool_use_id] = question_id
        await self._set_status("waiting_permission")
        waiting = asyncio.create_task(
            permissions.wait(
                self.db,
                self.manager.waits,
                user_id=self.user_id,
                question_id=question_id,
                seconds=self.settings.work_permission_wait,
            )
        )
        parking = asyncio.create_task(self._parking.wait())
        try:
            await asyncio.wait({waiting, parking}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            parking.cancel()
        answer = await waiting if waiting.done() else None
        if not waiting.done():
            waiting.cancel()
        if answer is not None:
            await self._set_status("working")
            if answer is Decision.allow_session:
                await self.allow_always(tool)
        return answer

    async def allow_always(self, tool: str) -> None:
        if tool not in self.allowed_tools:
            self.allowed_tools.append(tool)
            await store.update_session(
                self.db, self.conversation_id, allowed_tools=self.allowed_tools
            )

    # -- starting the process ------------------------------------------------------

    def _options(self, *, resume: str | None) -> ClaudeAgentOptions:
        wait = self.settings.work_permission_wait
        return ClaudeAgentOptions(
            cwd=str(self.cwd),
            cli_path=str(self.cli),
            resume=resume,
            include_partial_messages=True,
            permission_mode=_MODES[self.settings.work_permission_mode],  # type: ignore[arg-type]
            # In the bypass mode Claude Code never asks: no callback (the SDK warns of one).
            can_use_tool=None
            if self.settings.work_permission_mode == "none"
            else self._can_use_tool,
            hooks={
                "PreToolUse": [
                    HookMatcher(matcher=None, hooks=[self._pre_tool_use], timeout=wait + 15)
                ]
            },
            env=self._env(),
            stderr=self._on_stderr,
        )

    def _env(self) -> dict[str, str]:
        env = {proctree.TAG: self.tag}
        if self.settings.work_permission_mode == "none":
            # Claude Code refuses its bypass mode as root unless told it runs in a sandbox.
            env["IS_SANDBOX"] = "1"
        return env

    def _on_stderr(self, line: str) -> None:
        self._stderr = [*self._stderr[-19:], line]

    def _start_error(self, exc: BaseException) -> str:
        detail = " ".join(self._stderr[-3:]) or str(exc) or type(exc).__name__
        return f"Claude Code could not start: {detail}"[:2000]

    def _exit_error(self, code: Any) -> str:
        detail = " ".join(self._stderr[-3:])
        text = f"Claude Code exited unexpectedly (exit code {code})"
        return f"{text}: {detail}"[:2000] if detail else text

    # -- resuming a deferred tool call ---------------------------------------------

    async def _apply_decision(self, decision: Resume) -> None:
        """Resume the session once, in print mode, with a hook that answers the deferred
        call with the stored decision; Claude Code runs (or skips) it and carries on."""
        assert self.session_id is not None
        settings_json = permissions.resume_settings(
            self.settings,
            python=sys.executable,
            tool_use_id=decision.tool_use_id,
            decision=decision.answer,
            allowed=self.allowed_tools,
        )
        command = [
            str(self.cli),
            "-p",
            "--resume",
            self.session_id,
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--permission-mode",
            _MODES[self.settings.work_permission_mode],
            "--settings",
            settings_json,
        ]
        await self._set_status("working")
        # The server's environment plus ours, as the SDK passes it.
        command = ["env", *(f"{k}={v}" for k, v in self._env().items()), *command]
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=self.cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=16 * 1024 * 1024,
        )
        self.pid = process.pid
        await store.set_run(self.db, self.run_id, pid=self.pid, status="running")
        assert process.stdout is not None
        async for line in process.stdout:
            try:
                message = parse_message(json.loads(line))
            except Exception:  # a line the SDK does not know: not ours to store
                continue
            if message is not None:
                await self.handle(message)
        code = await process.wait()
        self.pid = None
        if code != 0 and self._deferred is None:
            assert process.stderr is not None
            detail = (await process.stderr.read()).decode(errors="replace")[-500:]
            raise SessionFailed(f"Claude Code could not resume the session: {detail or code}")
