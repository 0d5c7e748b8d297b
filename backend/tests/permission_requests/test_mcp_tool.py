"""`approve_tool_use` over `/mcp` (the official MCP client): Claude Code's permission-prompt
contract, decided by the person's rules at once, else by the person."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp.types import CallToolResult, TextContent

from parley.db import Database
from tests.conftest import Server, eventually, token_for
from tests.permission_requests.helpers import questions
from tests.runs.helpers import Actor
from tests.tools.test_mcp_http import mcp_client


def verdict(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result
    [content] = result.content
    assert isinstance(content, TextContent)
    found: dict[str, Any] = json.loads(content.text)
    return found


async def test_rules_and_the_person_decide_the_prompt(server: Server, db: Database) -> None:
    ann = Actor(server, "ann")
    await ann.ok("POST", "/approval-rules", 201, json={"decision": "allow", "pattern": "Read"})
    await ann.ok("POST", "/approval-rules", 201, json={"decision": "deny", "pattern": "Bash(rm:*)"})
    async with mcp_client(server.base_url, token_for("ann", agent="ci")) as client:
        read = {"tool_name": "Read", "input": {"file_path": "/w/a"}, "tool_use_id": "t1"}
        allowed = verdict(await client.call_tool("approve_tool_use", read))
        assert allowed == {"behavior": "allow", "updatedInput": {"file_path": "/w/a"}}
        rm = {"tool_name": "Bash", "input": {"command": "rm -rf /"}, "tool_use_id": "t2"}
        denied = verdict(await client.call_tool("approve_tool_use", rm))
        assert denied["behavior"] == "deny" and "Bash(rm:*)" in denied["message"]
        assert await questions(db) == []

        edit = {
            "tool_name": "Edit",
            "input": {"file_path": "/w/b", "old_string": "a", "new_string": "b"},
            "tool_use_id": "t3",
        }
        waiting = asyncio.create_task(client.call_tool("approve_tool_use", edit))

        async def asked() -> bool:
            return bool(await questions(db))

        await eventually(asked, within=30)
        [question] = await questions(db)
        assert question["asked_by"] == "ci" and question["meta"]["permission"]["tool"] == "Edit"
        await server.waiting_for(question["message_id"])
        await ann.ok(
            "POST", f"/questions/{question['message_id']}/answer", 201, json={"text": "no thanks"}
        )
        said = verdict(await asyncio.wait_for(waiting, 30))
    assert said["behavior"] == "deny" and "no thanks" in said["message"], said
