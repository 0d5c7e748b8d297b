"""The app `parley serve` runs, with a model whose text deltas carry their own birth time.

Each delta's text is `time.monotonic_ns()` taken just before the delta is handed to the
runner (CLOCK_MONOTONIC is one clock for every process on the machine), so an SSE client
can tell how long the delta took to reach it. The model streams `BENCH_DELTAS` deltas,
`BENCH_DELTA_INTERVAL` seconds apart, like a fast LLM. Differences from `parley serve`: this
model, and no migrations (the bench applied them); same uvicorn defaults (uvloop, httptools).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from agents.items import ModelResponse, TResponseStreamEvent
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
)
from parley.api.app import create_app
from parley.config import get_settings

from lib import server_args


def _message(item_id: str, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=item_id,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[], logprobs=[])],
    )


def _response(output: list[Any], status: str = "completed") -> Response:
    return Response(
        id=f"resp_{uuid.uuid4().hex[:12]}",
        created_at=0,
        model="bench-stamp",
        object="response",
        output=output,
        tool_choice="auto",
        tools=[],
        top_p=None,
        parallel_tool_calls=False,
        status=status,  # type: ignore[arg-type]
    )


class StampModel(Model):
    def __init__(self, deltas: int, interval: float) -> None:
        self.deltas = deltas
        self.interval = interval

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return ModelResponse(
            output=[_message(f"msg_{uuid.uuid4().hex[:12]}", "stamp")],
            usage=Usage(),
            response_id=None,
        )

    async def stream_response(
        self, *args: Any, **kwargs: Any
    ) -> AsyncIterator[TResponseStreamEvent]:  # type: ignore[override]
        item_id = f"msg_{uuid.uuid4().hex[:12]}"
        seq = 0
        yield ResponseCreatedEvent(
            type="response.created", response=_response([], "in_progress"), sequence_number=seq
        )
        seq += 1
        yield ResponseOutputItemAddedEvent(
            type="response.output_item.added",
            item=_message(item_id, ""),
            output_index=0,
            sequence_number=seq,
        )
        text = ""
        for i in range(self.deltas):
            if i:
                await asyncio.sleep(self.interval)
            chunk = f"{time.monotonic_ns()} "
            text += chunk
            seq += 1
            yield ResponseTextDeltaEvent(
                type="response.output_text.delta",
                item_id=item_id,
                output_index=0,
                content_index=0,
                delta=chunk,
                logprobs=[],
                sequence_number=seq,
            )
        item = _message(item_id, text)
        seq += 1
        yield ResponseOutputItemDoneEvent(
            type="response.output_item.done", item=item, output_index=0, sequence_number=seq
        )
        seq += 1
        yield ResponseCompletedEvent(
            type="response.completed", response=_response([item]), sequence_number=seq
        )


def main() -> None:
    args = server_args()
    settings = get_settings()
    model = StampModel(
        int(os.environ.get("BENCH_DELTAS", "50")),
        float(os.environ.get("BENCH_DELTA_INTERVAL", "0.005")),
    )
    app = create_app(settings, database_url=settings.database_url, model=model)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
