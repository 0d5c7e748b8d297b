"""Waits as MCP tasks: `tasks/get` latency with 500 open tasks, and the delay from a person's
answer to the first `tasks/get` that says `completed`, across two instances.

500 agents (each its own person and agent token) call `ask_user` over the raw 2026-07-28 wire
on instance A, declaring the tasks extension: each gets a `CreateTaskResult` at once. Then
`tasks/get` is timed over the open tasks (on A). Then the people answer one at a time through
REST on instance B while the agent polls `tasks/get` on A back to back; delay = from sending
the answer to reading `completed`. Run alone: `.venv/bin/python bench/mcp_tasks.py [--quick]`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import httpx

from lib import BenchDatabase, Pair, ServerProcess, auth, ms, pct, run_alone, server_pair

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
_ids = itertools.count(1)


def _meta() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}},
    }


async def _rpc(
    http: httpx.AsyncClient, user: str, method: str, params: dict[str, Any], name: str
) -> dict[str, Any]:
    headers = {
        **auth(user, "bench-agent"),
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "Mcp-Name": name,
    }
    body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
    response = await http.post("/mcp", json=body, headers=headers)
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:{"))
    found: dict[str, Any] = json.loads(text)["result"]
    return found


async def _get(http: httpx.AsyncClient, user: str, task_id: str) -> dict[str, Any]:
    return await _rpc(http, user, "tasks/get", {"taskId": task_id, "_meta": _meta()}, task_id)


async def measure(a: ServerProcess, b: ServerProcess, *, agents: int) -> dict[str, Any]:
    users = [f"bench-task-{i}" for i in range(agents)]
    tasks: dict[str, str] = {}
    async with httpx.AsyncClient(base_url=a.base_url, timeout=60) as http:
        for start in range(0, agents, 50):
            batch = users[start : start + 50]
            made = await asyncio.gather(
                *(
                    _rpc(
                        http,
                        u,
                        "tools/call",
                        {"name": "ask_user", "arguments": {"question": "Ship?"}, "_meta": _meta()},
                        "ask_user",
                    )
                    for u in batch
                )
            )
            for user, result in zip(batch, made, strict=True):
                assert result["resultType"] == "task", result
                tasks[user] = result["taskId"]
        get_latency: list[float] = []
        for user in users * 2:  # every open task, twice
            sent = time.perf_counter()
            polled = await _get(http, user, tasks[user])
            get_latency.append(time.perf_counter() - sent)
            assert polled["status"] == "working", polled
        delays: list[float] = []
        answered = users[: min(agents, 200)]
        async with httpx.AsyncClient(base_url=b.base_url, timeout=60) as rest:
            for user in answered:
                question = int(tasks[user][1:].split(".")[0])
                sent = time.perf_counter()
                response = await rest.post(
                    f"/api/{user}/questions/{question}/answer",
                    json={"text": "yes"},
                    headers=auth(user),
                )
                assert response.status_code == 201, response.text
                while (await _get(http, user, tasks[user]))["status"] != "completed":
                    pass
                delays.append(time.perf_counter() - sent)
    return {"agents": agents, "get": get_latency, "delays": delays}


def measure_mcp_tasks(db: BenchDatabase, quick: bool, pair: Pair | None = None) -> dict[str, Any]:
    with server_pair(db, "mcp-tasks", reuse=pair) as (a, b):
        return asyncio.run(measure(a, b, agents=20 if quick else 500))


def show(found: dict[str, Any]) -> None:
    get, delays = found["get"], found["delays"]
    print(
        f"{found['agents']} open tasks: tasks/get p50 {ms(pct(get, 50))}, p99 {ms(pct(get, 99))};"
        f" answer → completed ({len(delays)} answers, REST on B, tasks/get on A)"
        f" p50 {ms(pct(delays, 50))}, p99 {ms(pct(delays, 99))}, max {ms(max(delays))}"
    )


if __name__ == "__main__":
    raise SystemExit(run_alone(__doc__, measure_mcp_tasks, show))
