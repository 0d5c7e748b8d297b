"""The app `parley serve` runs, with a model whose text deltas carry their own birth time.

Each delta's text is `time.monotonic_ns()` taken just before the delta is handed to the
runner (CLOCK_MONOTONIC is one clock for every process on the machine), so an SSE client
can tell how long the delta took to reach it. The model streams `BENCH_DELTAS` deltas,
`BENCH_DELTA_INTERVAL` seconds apart, like a fast LLM (the first after `BENCH_FIRST_DELAY`
seconds, 0 by default). Differences from `parley serve`: this model, and no migrations (the
bench applied them); same uvicorn defaults (uvloop, httptools).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from agents.items import TResponseOutputItem
from agents.testing import assistant_message
from parley.api.app import create_app
from parley.assistant.offline import OfflineModel
from parley.config import get_settings

from lib import server_args


class StampModel(OfflineModel):
    """The offline model's streaming, with a reply of `deltas` stamps `interval` apart."""

    def __init__(self, deltas: int, interval: float, first_delay: float = 0.0) -> None:
        super().__init__()
        self.deltas = deltas
        self.interval = interval
        self.first_delay = first_delay  # a real model's time to its first token

    def answer(self, input: Any, tool_names: set[str]) -> list[TResponseOutputItem]:
        return [assistant_message("stamp")]

    async def text_deltas(self, text: str) -> AsyncIterator[str]:
        if self.first_delay:
            await asyncio.sleep(self.first_delay)
        for i in range(self.deltas):
            if i:
                await asyncio.sleep(self.interval)
            yield f"{time.monotonic_ns()} "


def main() -> None:
    args = server_args()
    settings = get_settings()
    model = StampModel(
        int(os.environ.get("BENCH_DELTAS", "50")),
        float(os.environ.get("BENCH_DELTA_INTERVAL", "0.005")),
        float(os.environ.get("BENCH_FIRST_DELAY", "0")),
    )
    app = create_app(settings, database_url=settings.database_url, model=model)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
