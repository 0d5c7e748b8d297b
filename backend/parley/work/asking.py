"""How a live work session asks its person about a tool call: Claude Code's PreToolUse hook
and `can_use_tool` callback, answered from the person's answer to a question in the
conversation (see permissions.py), waited for in-band for a few seconds at most."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from claude_agent_sdk import (
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from parley.config import Settings
from parley.db import Database
from parley.questions.escalation import OnTimeout
from parley.questions.words import Decision
from parley.realtime.waits import Waits
from parley.work import permissions, store
from parley.work.status import WorkStatus


class Asking:
    """The session's permission callbacks and what they remember: the tools the person
    allowed for the whole session, and the question each tool call was asked as."""

    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        waits: Waits,
        user_id: str,
        conversation_id: int,
        allowed_tools: list[str],
        set_status: Callable[[WorkStatus], Awaitable[None]],
    ) -> None:
        self.db = db
        self.settings = settings
        self.waits = waits
        self.user_id = user_id
        self.conversation_id = conversation_id
        self.allowed_tools = list(allowed_tools)
        self.set_status = set_status
        self.questions: dict[str, int] = {}  # tool_use_id -> question id
        self._parking = asyncio.Event()  # set at shutdown: defer the call being asked about

    def options(self, cwd: str) -> ClaudeAgentOptions:
        """What the SDK's client itself uses (the callbacks); the command line and the
        environment are the transport's (`cli.command`, `cli.environment`)."""
        wait = self.settings.work_permission_wait
        return ClaudeAgentOptions(
            cwd=cwd,
            # In the bypass mode Claude Code never asks: no callback (the SDK warns of one).
            can_use_tool=None
            if self.settings.work_permission_mode == "none"
            else self.can_use_tool,
            hooks={
                "PreToolUse": [
                    HookMatcher(matcher=None, hooks=[self.pre_tool_use], timeout=wait + 15)
                ]
            },
        )

    async def pre_tool_use(self, data: Any, tool_use_id: str | None, _ctx: Any) -> Any:
        tool = str(data.get("tool_name", ""))
        tool_input = data.get("tool_input") or {}
        tool_use_id = tool_use_id or data.get("tool_use_id")
        rule = await permissions.ruled(
            self.db,
            user_id=self.user_id,
            tool=tool,
            tool_input=tool_input,
            cwd=str(data.get("cwd") or ""),
        )
        if rule is not None and rule.decision != "ask":  # the person's standing answer
            return permissions.ruled_output(rule)
        if rule is None and not permissions.needs_asking(self.settings, tool, self.allowed_tools):
            return {}
        on_timeout = OnTimeout.deny if rule is None else OnTimeout(rule.on_timeout)
        answer = await self.ask(tool, tool_input, tool_use_id, on_timeout=on_timeout)
        if answer is None:
            return permissions.hook_output("defer", "Waiting for the person to answer")
        if answer is Decision.deny:
            return permissions.hook_output("deny", permissions.DENIED)
        return permissions.hook_output("allow")

    async def can_use_tool(
        self, tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        """What Claude Code itself asks about (the hook asked about the rest): answered
        in-band only; no answer in time is a denial, and its question closes."""
        if tool in self.allowed_tools or self.settings.work_permission_mode == "none":
            return PermissionResultAllow()
        answer = await self.ask(tool, tool_input, context.tool_use_id)
        if answer is None:
            question_id = self.questions.get(context.tool_use_id or "")
            if question_id is not None:
                await permissions.timed_out(self.db, user_id=self.user_id, question_id=question_id)
            return PermissionResultDeny(message="No answer in time")
        if answer is Decision.deny:
            return PermissionResultDeny(message=permissions.DENIED)
        return PermissionResultAllow()

    def park(self) -> None:
        """At shutdown: a call waiting in-band for the person is deferred now (parked with
        its question, as after a long wait) instead of dying with the process, so an answer
        after the restart still runs it."""
        self._parking.set()

    async def ask(
        self,
        tool: str,
        tool_input: dict[str, Any],
        tool_use_id: str | None,
        *,
        on_timeout: OnTimeout = OnTimeout.deny,
    ) -> Decision | None:
        question_id = self.questions.get(tool_use_id or "")
        if question_id is None:
            question = await permissions.ask(
                self.db,
                conversation_id=self.conversation_id,
                user_id=self.user_id,
                tool=tool,
                tool_input=tool_input,
                tool_use_id=tool_use_id,
                on_timeout=on_timeout,
            )
            question_id = question.id
            if tool_use_id:
                self.questions[tool_use_id] = question_id
        await self.set_status(WorkStatus.waiting_permission)
        waiting = asyncio.create_task(
            permissions.wait(
                self.db,
                self.waits,
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
            if not waiting.done():
                waiting.cancel()
        answer = waiting.result() if waiting.done() and not waiting.cancelled() else None
        if answer is not None:
            await self.set_status(WorkStatus.working)
            if answer is Decision.allow_session:
                await self.allow_always(tool)
        return answer

    async def allow_always(self, tool: str) -> None:
        if tool not in self.allowed_tools:
            self.allowed_tools.append(tool)
            await store.update_session(
                self.db, self.user_id, self.conversation_id, allowed_tools=self.allowed_tools
            )
