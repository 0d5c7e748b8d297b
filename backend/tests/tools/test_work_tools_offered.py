"""The model is offered the work-session tools only where work mode is on."""

from __future__ import annotations

from mcp import Client

from parley.tools.identity import fixed_user
from tests.tools.served import tool_server


async def test_work_tools_are_offered_only_where_work_mode_is_on(db):
    for on in (False, True):
        server = tool_server(db, fixed_user("alice"), with_work=on)
        async with Client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
        assert "add_task" in names
        assert ("start_work_session" in names) is on, names
