"""Reading MCP tool results and the REST view of tasks, for the transport tests."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent

from tests.conftest import Server

# A bare JSON-RPC initialize request, for tests that speak the wire protocol by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def text(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


def data(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


async def rest_tasks(server: Server, user: str) -> list[dict[str, Any]]:
    response = await server.client.get(f"/api/{user}/tasks", headers=server.headers(user))
    assert response.status_code == 200, response.text
    body = response.json()
    tasks: list[dict[str, Any]] = body["tasks"] if isinstance(body, dict) else body
    return tasks
