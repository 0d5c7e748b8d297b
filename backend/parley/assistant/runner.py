"""Running the assistant for one turn through the real Agents SDK runner, streamed.

The turn pipeline always streams: a JSON caller just ignores the events. Tool calls are
gathered as they happen, so a run that fails half-way still reports what it already did.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Runner, Tool
from agents.items import ToolCallItem, ToolCallOutputItem
from agents.mcp import MCPServer
from agents.models.interface import Model
from agents.stream_events import RawResponsesStreamEvent, RunItemStreamEvent

from parley import events
from parley.assistant.agent import TurnContext, build_agent, mcp_function_tools
from parley.assistant.catalog import ModelCatalog
from parley.assistant.history import history_items
from parley.attachments.store import AttachmentData
from parley.events import Emit
from parley.messages.store import StoredMessage

log = logging.getLogger(__name__)
MAX_MODEL_CALLS = 8


@dataclass
class Reply:
    """Filled in as the run goes: a run cut short (failed, stopped) still says what it did."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    deltas: list[str] = field(default_factory=list)

    @property
    def partial_text(self) -> str:
        return "".join(self.deltas).strip()


class AssistantFailed(Exception):
    def __init__(self, reason: str, partial: Reply) -> None:
        super().__init__(reason)
        self.reason = reason
        self.partial = partial


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

    def __init__(self, *, model: Model, tools: MCPServer, catalog: ModelCatalog) -> None:
        self.model = model
        self.tools = tools
        self.catalog = catalog  # the models a conversation may choose instead of `model`
        self._function_tools: list[Tool] | None = None

    async def prepare(self) -> None:
        """Convert the tools before the first turn (at start-up), not inside a burst of them."""
        await self.function_tools()

    async def function_tools(self) -> list[Tool]:
        if self._function_tools is None:
            self._function_tools = await mcp_function_tools(self.tools, model=self.model)
        return self._function_tools

    async def respond(
        self,
        *,
        history: Sequence[StoredMessage],
        context: TurnContext,
        files: Mapping[int, AttachmentData] | None = None,
        images: bool = False,
        emit: Emit | None,
        time_limit: float,
        reply: Reply | None = None,
        model: Model | None = None,
        person_instructions: str = "",
    ) -> Reply:
        """Run the agent on `history`; `reply` (when given) is filled in as the run goes, so a
        caller that cancels the run still has the text and tool calls so far. `model` (the
        conversation's choice) replaces the configured one; `person_instructions` are the
        person's own, added to the agent's. `files` are the history's attachments by id;
        `images` whether the model is shown its images."""
        reply = reply if reply is not None else Reply()
        pending: dict[str, dict[str, Any]] = {}

        def send(event: str, data: dict[str, Any]) -> None:
            if emit is not None:
                emit(event, data)

        agent = build_agent(
            model=model or self.model,
            tools=await self.function_tools(),
            person_instructions=person_instructions,
        )
        try:
            async with asyncio.timeout(time_limit):
                result = Runner.run_streamed(
                    agent,
                    history_items(history, files=files, images=images),
                    context=context,
                    max_turns=MAX_MODEL_CALLS,
                )
                try:
                    async for event in result.stream_events():
                        if isinstance(event, RawResponsesStreamEvent):
                            if event.data.type == "response.output_text.delta":
                                reply.deltas.append(event.data.delta)
                                send(events.DELTA, {"text": event.data.delta})
                        elif isinstance(event, RunItemStreamEvent):
                            record_item(event, reply, pending, send)
                except asyncio.CancelledError:
                    result.cancel()  # the run goes on in its own task otherwise
                    raise
            reply.text = str(result.final_output or "").strip() or "Done."
        except TimeoutError as exc:
            raise AssistantFailed("The model took too long to answer", reply) from exc
        except Exception as exc:
            # The upstream's own words (status lines, stack details) go to the log only: the
            # person and the stored reply get a sentence they can act on.
            log.warning("model call failed: %r", exc)
            raise AssistantFailed(_human_reason(exc), reply) from exc
        return reply


def record_item(
    event: RunItemStreamEvent, reply: Reply, pending: dict[str, dict[str, Any]], send: Emit
) -> None:
    """Add a tool call (or its result) to `reply.tool_calls` and announce it; `pending` maps
    the run's call ids to their records."""
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
            events.TOOL_CALL,
            {"call_id": call_id, "tool": record["tool"], "parameters": parameters},
        )
    elif isinstance(item, ToolCallOutputItem):
        raw_out: Any = item.raw_item
        call_id = raw_out.get("call_id", "") if isinstance(raw_out, dict) else ""
        record = pending.get(call_id) or {"tool": "unknown", "parameters": {}, "result": None}
        record["result"] = _result_value(item.output)
        send(
            events.TOOL_RESULT,
            {"call_id": call_id, "tool": record["tool"], "result": record["result"]},
        )


def _human_reason(exc: Exception) -> str:
    """What a person can understand of a failed model call."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return f"The model service answered with an error (HTTP {status})"
    if type(exc).__name__ in {"APIConnectionError", "ConnectError", "ConnectionError"}:
        return "The model service could not be reached"
    return "The model ran into an error"
