"""Every tool says what it does to the world (MCP tool annotations), so a client that gates on
them auto-approves what only reads and asks before what destroys."""

from __future__ import annotations

import pytest

from parley.tools import agent_tools, delegation_tools, permission_tools, server, work_tools
from parley.tools.annotations import ANNOTATIONS
from tests.conftest import Server, token_for
from tests.tools.test_mcp_http import mcp_client

ALL_TOOLS = (
    *server.TASK_TOOLS,
    *agent_tools.TOOLS,
    *delegation_tools.TOOLS,
    *permission_tools.TOOLS,
    *work_tools.TOOLS,
)
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@pytest.mark.unit
def test_the_table_names_exactly_the_tools_served() -> None:
    assert {t.__name__ for t in ALL_TOOLS} == set(ANNOTATIONS)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("tool", "read_only", "destructive"),
    [
        ("list_tasks", True, False),
        ("wait_for_answer", True, False),
        ("add_task", False, False),
        ("delete_task", False, True),
        ("cancel_delegation", False, True),
        ("send_to_work_session", False, True),
    ],
)
def test_reading_and_destroying_are_told_apart(
    tool: str, read_only: bool, destructive: bool
) -> None:
    hints = ANNOTATIONS[tool]
    assert (hints.read_only_hint, hints.destructive_hint) == (read_only, destructive)


async def test_an_agent_sees_all_four_hints_on_every_tool(server: Server) -> None:
    async with mcp_client(server.base_url, token_for("alice", agent="planner")) as client:
        listed = (await client.list_tools()).tools
    names = {t.name for t in listed}
    assert {t.__name__ for t in server_tools()} <= names  # type: ignore[attr-defined]
    for tool in listed:
        assert tool.annotations is not None, tool.name
        stated = tool.annotations.model_dump(by_alias=True)
        assert all(isinstance(stated[h], bool) for h in HINTS), (tool.name, stated)
        assert stated == {**stated, **ANNOTATIONS[tool.name].model_dump(by_alias=True)}, tool.name
    by_name = {t.name: t.annotations for t in listed}
    assert by_name["list_tasks"].read_only_hint is True  # type: ignore[union-attr]
    assert by_name["delete_task"].destructive_hint is True  # type: ignore[union-attr]


def server_tools() -> tuple[object, ...]:
    """What `/mcp` serves an agent whatever the work setting: tasks, agents, delegation."""
    return (
        *server.TASK_TOOLS,
        *agent_tools.TOOLS,
        *delegation_tools.TOOLS,
        *permission_tools.TOOLS,
    )
