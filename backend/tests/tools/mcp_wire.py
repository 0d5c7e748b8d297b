"""A raw JSON-RPC client for `/mcp` in the 2026-07-28 era (stateless: every request carries
its protocol version and capabilities in `_meta`, and the `Mcp-Method` header), for tests
that check the wire itself."""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx

from tests.conftest import token_for

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
_ids = itertools.count(1)


def sse_or_json(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a response, sent as JSON or as one SSE event."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message: dict[str, Any] = json.loads(line[5:])
                if "id" in message:
                    return message
        raise AssertionError(f"no JSON-RPC response in {response.text!r}")
    body: dict[str, Any] = response.json()
    return body


class Wire:
    """One agent's raw requests to one instance; `tasks` declares the tasks extension."""

    def __init__(self, base: str, user: str, agent: str, *, tasks: bool = True) -> None:
        self.base, self.user, self.agent, self.tasks = base, user, agent, tasks

    def meta(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        capabilities: dict[str, Any] = {"extensions": {TASKS: {}}} if self.tasks else {}
        return {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
            **(extra or {}),
        }

    async def request(
        self, method: str, params: dict[str, Any], *, name: str | None = None
    ) -> dict[str, Any]:
        headers = {
            "Authorization": f"Bearer {token_for(self.user, agent=self.agent)}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
        }
        if name is not None:
            headers["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
        async with httpx.AsyncClient(timeout=90) as client:
            response = await client.post(f"{self.base}/mcp", json=body, headers=headers)
        return sse_or_json(response)

    async def call(
        self, tool: str, arguments: dict[str, Any], *, call_id: str | None = None
    ) -> dict[str, Any]:
        extra = {"claudecode/toolUseId": call_id} if call_id else None
        params = {"name": tool, "arguments": arguments, "_meta": self.meta(extra)}
        message = await self.request("tools/call", params, name=tool)
        assert "result" in message, message
        result: dict[str, Any] = message["result"]
        return result

    async def task(self, method: str, task_id: str) -> dict[str, Any]:
        params = {"taskId": task_id, "_meta": self.meta()}
        return await self.request(method, params, name=task_id)
