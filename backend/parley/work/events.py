"""Claude Code's messages as what Parley stores and streams.

Each assistant text, tool use, tool result and prompt result becomes one stored message
(`kind=output`, the details in `meta`); text deltas are live events only, and the text
they form is stored once the block is complete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

MAX_CONTENT = 16_000


@dataclass(frozen=True)
class Output:
    """One message to store."""

    content: str
    meta: dict[str, Any]
    error: bool = False


def delta_text(message: Any) -> str | None:
    if isinstance(message, StreamEvent):
        event = message.event
        if event.get("type") == "content_block_delta":
            delta = event.get("delta") or {}
            if delta.get("type") == "text_delta":
                return str(delta.get("text", ""))
    return None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CONTENT else text[: MAX_CONTENT - 1] + "…"


def describe_tool(name: str, tool_input: dict[str, Any]) -> str:
    """A tool call as one readable line: the command, the file, else the input."""
    if name == "Bash" and "command" in tool_input:
        return f"Bash: `{tool_input['command']}`"
    for key in ("file_path", "notebook_path", "path", "url", "pattern"):
        if key in tool_input:
            return f"{name}: {tool_input[key]}"
    return f"{name}: {json.dumps(tool_input)[:500]}"


def _result_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = [str(item.get("text", "")) for item in content if isinstance(item, dict)]
    return "\n".join(p for p in parts if p)


def outputs(message: Any, *, stopped: bool = False, reported: bool = False) -> list[Output]:
    """The messages to store for one SDK message (most store none). `stopped`: the person
    stopped this prompt, so its result says so instead of reporting a failure. `reported`:
    this prompt's error is already stored (an API error), so its failed result does not
    show the same error a second time."""
    if isinstance(message, AssistantMessage):
        found: list[Output] = []
        if message.error:  # an API error, reported as a synthetic reply: one error message
            said = " ".join(b.text for b in message.content if isinstance(b, TextBlock))
            text = said.strip() or f"Claude Code reported an error: {message.error}"
            return [Output(_clip(text), {"type": "error", "error": message.error}, True)]
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                found.append(Output(_clip(block.text), {"type": "text"}))
            elif isinstance(block, ToolUseBlock):
                meta = {
                    "type": "tool_use",
                    "tool": block.name,
                    "input": block.input,
                    "tool_use_id": block.id,
                }
                found.append(Output(_clip(describe_tool(block.name, block.input)), meta))
        return found
    if isinstance(message, UserMessage) and isinstance(message.content, list):
        found = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                text = _result_text(block.content) or "(no output)"
                result_meta: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": block.tool_use_id,
                    "is_error": bool(block.is_error),
                }
                found.append(Output(_clip(text), result_meta, bool(block.is_error)))
        return found
    if isinstance(message, ResultMessage):
        return [result_output(message, stopped=stopped, reported=reported)]
    return []


def result_output(
    message: ResultMessage, *, stopped: bool = False, reported: bool = False
) -> Output:
    meta: dict[str, Any] = {
        "type": "error" if message.is_error else "result",
        "cost_usd": message.total_cost_usd or 0.0,
        "duration_ms": message.duration_ms,
        "num_turns": message.num_turns,
        "session_id": message.session_id,
        "stop_reason": message.stop_reason,
    }
    if stopped:
        meta.update(type="result", stopped=True)
        return Output("Stopped.", meta)
    seconds = message.duration_ms / 1000
    cost = message.total_cost_usd or 0.0
    if message.is_error:
        detail = "; ".join(message.errors or []) or (message.result or message.subtype)
        if reported:  # the error itself is on screen already: the result only closes the prompt
            meta.update(type="result", failed=True, detail=detail)
            return Output(f"Failed after {seconds:.1f} s, {message.num_turns} turn(s)", meta)
        return Output(f"Claude Code could not finish this prompt: {detail}", meta, True)
    summary = f"Done in {seconds:.1f} s, {message.num_turns} turn(s), ${cost:.4f}"
    if message.stop_reason == "tool_deferred":
        summary = "Paused until the person answers the permission question"
    return Output(summary, meta)


@dataclass
class CallLog:
    """The tool calls a prompt ran, in the shape a chat reply keeps them
    (`[{"tool", "parameters", "result"}]`, an error result as `{"error": text}`), so a work
    reply lists what Claude Code did the way a chat reply lists the assistant's tools."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    _by_id: dict[str, dict[str, Any]] = field(default_factory=dict)

    def use(self, tool_use_id: str, tool: str, tool_input: dict[str, Any]) -> None:
        if tool_use_id in self._by_id:  # the deferred call, announced again on resume
            return
        record: dict[str, Any] = {"tool": tool, "parameters": tool_input, "result": None}
        self._by_id[tool_use_id] = record
        self.calls.append(record)

    def add(self, output: Output) -> None:
        """Record what one stored output says of a tool call (other outputs say nothing)."""
        meta = output.meta
        if meta.get("type") == "tool_use":
            self.use(str(meta.get("tool_use_id")), str(meta.get("tool")), meta.get("input") or {})
        elif meta.get("type") == "tool_result":
            record = self._by_id.get(str(meta.get("tool_use_id")))
            if record is not None:
                record["result"] = {"error": output.content} if output.error else output.content

    def take(self) -> list[dict[str, Any]]:
        """The calls so far, and a fresh log for the next prompt."""
        calls = self.calls
        self.calls, self._by_id = [], {}
        return calls
