"""The offline model: deterministic, free, and good enough to drive the real tools.

It reads plain task commands from the newest user message, asks for the matching tool
call, then turns the tool's result into a short sentence. Anything else gets a help text.
It goes through the real agent runner, so everything around it is exercised for real.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from agents.items import (
    ModelResponse,
    TResponseInputItem,
    TResponseOutputItem,
    TResponseStreamEvent,
)
from agents.models.interface import Model, ModelTracing
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.usage import Usage
from openai.types.responses import ResponseTextDeltaEvent

HELP = (
    "I'm Parley's offline assistant. I understand plain task commands, for example: "
    '"add a task to buy milk", "list my tasks", "show my pending tasks", '
    '"mark task 3 as done", "delete task 2", "rename task 1 to call mom", '
    '"update task 1 description to use oat milk".'
)


WORK_HELP = (
    'Say what the work session should do, for example: "start a work session to fix the '
    'failing test".'
)


@dataclass(frozen=True)
class Intent:
    tool: str
    arguments: dict[str, Any]


_ID = r"(?:task\s*)?#?(\d+)"
_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (
        re.compile(
            r"^(?:please\s+)?(?:start|open|begin)\s+(?:a\s+)?(?:new\s+)?work session"
            r"(?:\s+to)?\s*(.*)$",
            re.S,
        ),
        lambda m: Intent("start_work_session", {"prompt": m[1].strip()}),
    ),
    (
        re.compile(
            rf"^(?:please\s+)?(?:mark|set)\s+{_ID}\s+(?:as\s+)?(?:done|complete|completed|finished)$"
        ),
        lambda m: Intent("complete_task", {"task_id": int(m[1])}),
    ),
    (
        re.compile(rf"^(?:please\s+)?(?:complete|finish|check off|tick off)\s+{_ID}$"),
        lambda m: Intent("complete_task", {"task_id": int(m[1])}),
    ),
    (
        re.compile(r"^task\s*#?(\d+)\s+is\s+(?:done|complete|completed|finished)$"),
        lambda m: Intent("complete_task", {"task_id": int(m[1])}),
    ),
    (
        re.compile(rf"^(?:please\s+)?(?:delete|remove|drop)\s+{_ID}$"),
        lambda m: Intent("delete_task", {"task_id": int(m[1])}),
    ),
    (
        re.compile(
            rf"^(?:please\s+)?(?:update|set|change)\s+{_ID}(?:'s)?\s+description\s+(?:to|:)\s*(.+)$",
            re.S,
        ),
        lambda m: Intent("update_task", {"task_id": int(m[1]), "description": m[2].strip()}),
    ),
    (
        re.compile(
            rf"^(?:please\s+)?(?:rename|retitle)\s+{_ID}\s+(?:to|as)\s+(.+)$|"
            rf"^(?:please\s+)?(?:update|change|set)\s+{_ID}(?:'s)?\s+(?:title\s+)?to\s+(.+)$",
            re.S,
        ),
        lambda m: Intent(
            "update_task",
            {"task_id": int(m[1] or m[3]), "title": (m[2] or m[4]).strip()},
        ),
    ),
    (
        re.compile(
            r"^(?:please\s+)?(?:can you\s+)?(?:add|create|new)\s+(?:a\s+)?(?:new\s+)?"
            r"(?:task|todo|to-do)"
            r"(?:\s+to|\s*:|\s+-)?\s+(.+)$|^(?:please\s+)?remind me to\s+(.+)$",
            re.S,
        ),
        lambda m: Intent("add_task", {"title": (m[1] or m[2]).strip()}),
    ),
    (
        re.compile(
            r"\b(pending|open|remaining|unfinished|incomplete|left|to do|todo)\b.*\btasks?\b|"
            r"\btasks?\b.*\b(pending|open|remaining|unfinished|incomplete|left)\b"
        ),
        lambda m: Intent("list_tasks", {"status": "pending"}),
    ),
    (
        re.compile(
            r"^what (?:have|did) i (?:complete|completed|finish|finished|done)\b|"
            r"\b(completed|finished|done)\s+tasks\b"
        ),
        lambda m: Intent("list_tasks", {"status": "completed"}),
    ),
    (
        re.compile(
            r"^(?:please\s+)?(?:list|show|display|what are|what's on|whats on|see)\b"
            r".*\b(?:tasks?|to-?dos?|list)\b"
        ),
        lambda m: Intent("list_tasks", {"status": "all"}),
    ),
]


WORK_OFF = (
    "Work mode is off on this server, so I can't start a Claude Code session here. "
    "Whoever runs Parley can turn it on with PARLEY_WORK_ENABLED=1."
)


def parse(text: str) -> Intent | None:
    """The tool call a plain command asks for, or None when it is not one."""
    cleaned = " ".join(text.strip().split())
    cleaned = re.sub(r"[.!?]+$", "", cleaned).strip()
    lowered = cleaned.lower()
    for pattern, build in _PATTERNS:
        match = pattern.search(lowered)
        if match is None:
            continue
        intent: Intent = build(match)
        # Titles and descriptions keep the person's own casing: re-cut them from the original.
        for key in ("title", "description"):
            if key in intent.arguments:
                value = intent.arguments[key]
                start = lowered.rfind(value)
                intent.arguments[key] = cleaned[start : start + len(value)] if start >= 0 else value
        return intent
    return None


def _text_of(item: Any) -> str:
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _output_json(output: Any) -> Any:
    if isinstance(output, list):
        output = "".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    if isinstance(output, dict) and "text" in output:
        output = output["text"]
    try:
        return json.loads(output) if isinstance(output, str) else output
    except json.JSONDecodeError:
        return {"error": str(output)}


def describe(tool: str, arguments: dict[str, Any], result: Any) -> str:
    """One plain sentence saying what a tool call did."""
    if not isinstance(result, dict):
        return "Done."
    if "error" in result:
        # The MCP SDK prefixes tool errors with "Error executing tool X: "; people need only
        # the reason ("Task 99 not found").
        reason = re.sub(r"^Error executing tool \w+: ", "", str(result["error"])).strip()
        return f"I couldn't do that: {reason.rstrip('.')}."
    title = result.get("title", "")
    if tool == "start_work_session":
        return (
            f"I started a Claude Code work session for '{title}' in conversation "
            f"#{result.get('conversation_id')}. Open it to follow along and answer its "
            "permission questions."
        )
    task_id = result.get("task_id")
    if tool == "add_task":
        return f"Added task #{task_id} '{title}'."
    if tool == "complete_task":
        return f"Marked task #{task_id} '{title}' as done."
    if tool == "delete_task":
        return f"Deleted task #{task_id} '{title}'."
    if tool == "update_task":
        if "title" in arguments:
            return f"Renamed task #{task_id} to '{title}'."
        return f"Updated the description of task #{task_id} '{title}'."
    if tool == "list_tasks":
        status = arguments.get("status", "all")
        found = result.get("tasks", [])
        if not found:
            return {
                "pending": "You have no pending tasks.",
                "completed": "You haven't completed any tasks yet.",
            }.get(status, "You have no tasks yet.")
        heading = {"pending": "Your pending tasks:", "completed": "Your completed tasks:"}.get(
            status, "Your tasks:"
        )
        lines = [
            f"- #{t['task_id']} {t['title']}"
            + (" (done)" if t.get("completed") and status == "all" else "")
            for t in found
        ]
        return "\n".join([heading, *lines])
    return "Done."


def decide(
    input: str | list[TResponseInputItem], tool_names: set[str]
) -> list[TResponseOutputItem]:
    """The next output: a tool call for a fresh command, or the words after the tool ran."""
    items: list[Any] = (
        [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
    )
    last_user = max(
        (
            i
            for i, item in enumerate(items)
            if isinstance(item, dict) and item.get("role") == "user"
        ),
        default=-1,
    )
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    results: list[str] = []
    for item in items[last_user + 1 :]:
        kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
        if kind == "function_call":
            calls[item["call_id"]] = (item["name"], json.loads(item.get("arguments") or "{}"))
        elif kind == "function_call_output" and item["call_id"] in calls:
            tool, arguments = calls[item["call_id"]]
            results.append(describe(tool, arguments, _output_json(item["output"])))
    if results:
        return [_message(" ".join(results))]
    said, files = split_files(_text_of(items[last_user])) if last_user >= 0 else ("", [])
    intent = parse(said)
    if intent is None:
        return [_message(describe_files(files) if files else HELP)]
    if intent.tool == "start_work_session" and not intent.arguments["prompt"]:
        return [_message(WORK_HELP)]
    if intent.tool not in tool_names:
        if intent.tool.endswith("_work_session"):  # offered only where work mode is on
            return [_message(WORK_OFF)]
        return [_message(f"I can't use {intent.tool} here.")]
    return [function_call(intent.tool, intent.arguments, call_id=f"call_{uuid.uuid4().hex[:12]}")]


_FILE = re.compile(r'\n*<attached file "([^"\n]*)">\n(.*?)\n</attached file>', re.S)


def split_files(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The person's own words, and the (name, text) of each file attached after them."""
    files = [(m[1], m[2]) for m in _FILE.finditer(text)]
    return _FILE.sub("", text).strip(), files


def describe_files(files: list[tuple[str, str]]) -> str:
    """What the offline model can say of attached files: that it got them, and how they begin
    (it reads no further; a real model reads them whole)."""
    parts = []
    for name, text in files:
        lines = text.splitlines()
        first = next((line.strip() for line in lines if line.strip()), "")
        counted = f"{len(lines)} line{'' if len(lines) == 1 else 's'}"
        parts.append(
            f'I received {name} ({counted}). It begins: "{first[:120]}".'
            if first
            else f"I received {name}, which is blank."
        )
    return " ".join(parts)


def _message(text: str) -> TResponseOutputItem:
    return assistant_message(text, item_id=f"msg_{uuid.uuid4().hex[:12]}")


def _chunks(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


class OfflineModel(Model):
    """`delay` stands in for a model's thinking time; `word_pause` for its typing speed
    (tests use it to join a reply half-way). The response events are the Agents SDK's own
    (its scripted model's), with the reply's text split into one delta per word."""

    def __init__(self, *, delay: float = 0.0, word_pause: float = 0.0) -> None:
        self.delay = delay
        self.word_pause = word_pause

    def answer(
        self, input: str | list[TResponseInputItem], tool_names: set[str]
    ) -> list[TResponseOutputItem]:
        """The output of one model call."""
        return decide(input, tool_names)

    async def text_deltas(self, text: str) -> AsyncIterator[str]:
        """How a reply's text is streamed: word by word."""
        for chunk in _chunks(text):
            if self.word_pause:
                await asyncio.sleep(self.word_pause)
            yield chunk

    async def get_response(
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        output = self.answer(input, {t.name for t in tools})
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    async def stream_response(  # type: ignore[override]
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        if self.delay:
            await asyncio.sleep(self.delay)
        output = self.answer(input, {t.name for t in tools})
        # The SDK's scripted model turns a known output into its stream events; it is given
        # no input (it would copy it, twice, to record the call).
        scripted = ScriptedModel([output]).stream_response(
            None,
            [],
            model_settings,
            [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
        async for event in scripted:
            if isinstance(event, ResponseTextDeltaEvent):
                async for chunk in self.text_deltas(event.delta):
                    yield event.model_copy(update={"delta": chunk})
                # Let the last delta reach the stream before the runner wraps up the reply
                # (it does so without yielding the event loop).
                await asyncio.sleep(0)
            else:
                yield event
