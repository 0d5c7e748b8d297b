"""Running the assistant for one turn through the real Agents SDK runner, streamed.

The turn pipeline always streams: a JSON caller just ignores the events. Tool calls are
gathered as they happen, so a run that fails half-way still reports what it already did.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Runner
from agents.items import ToolCallItem, ToolCallOutputItem, TResponseInputItem
from agents.mcp import MCPServer
from agents.models.interface import Model
from agents.stream_events import RawResponsesStreamEvent, RunItemStreamEvent

from parley.assistant.agent import TurnContext, build_agent
from parley.conversations import StoredMessage
from parley.models import Role

# Takes each event of the turn as it happens. Called on the event loop and must not block:
# it hands the event on (to a queue, to watchers), it does not await anyone.
Emit = Callable[[str, dict[str, Any]], None]
MAX_MODEL_CALLS = 8


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


class AssistantFailed(Exception):
    def __init__(self, reason: str, partial: Reply) -> None:
        super().__init__(reason)
        self.reason = reason
        self.partial = partial


def history_items(history: Sequence[StoredMessage]) -> list[TResponseInputItem]:
    """Stored messages as model input. Failed replies are left out: they carry no answer."""
    items: list[TResponseInputItem] = []
    for message in history:
        if message.error:
            continue
        if message.role == Role.assistant.value:
            items.append({"role": "assistant", "content": message.content})
        elif message.role == Role.user.value:
            items.append({"role": "user", "content": message.content})
        else:
            author = message.author or message.role
            items.append({"role": "user", "content": f"[{author}] {message.content}"})
    return items


def _result_value(output: Any) -> Any:
    if isinstance(output, dict) and output.get("type") == "text":
        output = output.get("text")
    if isinstance(output, str):
        try:
            return json.loads(output)
        except json.JSONDecodeError:
            return output
    return output


class Assistant:
    """The model and the shared tool connection; `respond` builds a fresh agent each time."""

    def __init__(self, *, model: Model, tools: MCPServer) -> None:
        self.model = model
        self.tools = tools

    async def respond(
        self,
        *,
        history: Sequence[StoredMessage],
        context: TurnContext,
        emit: Emit | None,
        time_limit: float,
    ) -> Reply:
        reply = Reply()
        pending: dict[str, dict[str, Any]] = {}

        def send(event: str, data: dict[str, Any]) -> None:
            if emit is not None:
                emit(event, data)

        agent = build_agent(model=self.model, tools=self.tools)
        try:
            async with asyncio.timeout(time_limit):
                result = Runner.run_streamed(
                    agent, history_items(history), context=context, max_turns=MAX_MODEL_CALLS
                )
                async for event in result.stream_events():
                    if isinstance(event, RawResponsesStreamEvent):
                        if event.data.type == "response.output_text.delta":
                            send("delta", {"text": event.data.delta})
                    elif isinstance(event, RunItemStreamEvent):
                        self._on_item(event, reply, pending, send)
            reply.text = str(result.final_output or "").strip() or "Done."
        except TimeoutError as exc:
            raise AssistantFailed("The model took too long to answer", reply) from exc
        except Exception as exc:
            raise AssistantFailed(f"The model failed: {exc}", reply) from exc
        return reply

    @staticmethod
    def _on_item(
        event: RunItemStreamEvent, reply: Reply, pending: dict[str, dict[str, Any]], send: Emit
    ) -> None:
        item = event.item
        if isinstance(item, ToolCallItem):
            raw: Any = item.raw_item
            call_id = getattr(raw, "call_id", None) or ""
            try:
                parameters = json.loads(getattr(raw, "arguments", "") or "{}")
            except json.JSONDecodeError:
                parameters = {"raw": getattr(raw, "arguments", "")}
            record = {
                "tool": getattr(raw, "name", "unknown"),
                "parameters": parameters,
                "result": None,
            }
            pending[call_id] = record
            reply.tool_calls.append(record)
            send(
                "tool_call", {"call_id": call_id, "tool": record["tool"], "parameters": parameters}
            )
        elif isinstance(item, ToolCallOutputItem):
            raw_out: Any = item.raw_item
            call_id = raw_out.get("call_id", "") if isinstance(raw_out, dict) else ""
            record = pending.get(call_id) or {"tool": "unknown", "parameters": {}, "result": None}
            record["result"] = _result_value(item.output)
            send(
                "tool_result",
                {"call_id": call_id, "tool": record["tool"], "result": record["result"]},
            )
