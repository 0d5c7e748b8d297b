"""The work-session tools, used by the offline assistant and by a remote agent over /mcp."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import eventually, token_for
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client
from tests.work.conftest import is_result, messages, needs_cli, wait_for_message
from tests.work.fake_anthropic import FakeAnthropic, say

pytestmark = [needs_cli, pytest.mark.slow]


async def test_the_assistant_starts_a_session_and_points_to_it(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("I fixed the failing test"))
    async with work_server() as server:
        reply = await server.chat("ann", "start a work session to fix the failing test")
        assert reply.status_code == 200, reply.text
        listed = await server.client.get("/api/ann/conversations", headers=server.headers("ann"))
        (work,) = [c for c in listed.json() if c["mode"] == "work"]
        assert f"conversation #{work['id']}" in reply.json()["response"]
        assert work["work"]["run_id"] is not None
        await wait_for_message(server, "ann", work["id"], is_result)
        found = await messages(server, "ann", work["id"])
        assert found[0]["content"] == "fix the failing test" and found[0]["role"] == "user"
        assert "I fixed the failing test" in [m["content"] for m in found]
        assert "fix the failing test" in fake_api.texts_sent(0)


async def test_a_remote_agent_drives_a_session_over_mcp(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("Started on it"), say("Second reply"))
    async with work_server() as server, mcp_client(server.base_url, token_for("ann")) as client:
        started = data(await client.call_tool("start_work_session", {"prompt": "build it"}))
        conversation = started["conversation_id"]
        await wait_for_message(server, "ann", conversation, is_result)
        sent = data(
            await client.call_tool(
                "send_to_work_session", {"conversation_id": conversation, "text": "and more"}
            )
        )
        assert sent["status"] == "sent"

        async def two_results() -> bool:
            return (
                len([m for m in await messages(server, "ann", conversation) if is_result(m)]) == 2
            )

        await eventually(two_results, within=30)
        read = data(await client.call_tool("get_work_session", {"conversation_id": conversation}))
        assert read["status"] == "idle"
        assert "Second reply" in [m["content"] for m in read["messages"]]
        ended = data(await client.call_tool("end_work_session", {"conversation_id": conversation}))
        assert ended["ended"] is True
    # Another person's token sees nothing of it.
    async with work_server() as server, mcp_client(server.base_url, token_for("bob")) as client:
        result = await client.call_tool("get_work_session", {"conversation_id": conversation})
        assert result.is_error and "not found" in str(result.content).lower()
