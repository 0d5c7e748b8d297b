"""What `/mcp` promises is what it serves, seen by the official `mcp` client over real HTTP in
both protocol eras (`auto`: 2026-07-28, `legacy`: a 2025 revision with `initialize`):

- it advertises tools and the tasks extension only: no `prompts` or `resources` (which it
  does not serve; asking for them is "method not found", never an internal error with a
  traceback in the log), no `listChanged` (its tools never change);
- `serverInfo.version` is the package's version (over stdio too);
- the `tasks/` methods (SEP-2663 reserves the prefix) answer only a request that declared
  the tasks extension: any other gets -32021 and the capability it lacks (SEP-2133), and
  changes nothing, even with the id of a real task."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import ClientExtension
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from tests.conftest import Server, token_for
from tests.tools.mcp_wire import TASKS, Wire
from tests.tools.test_mcp_stdio import stdio_client

USER, AGENT = "alice", "helper"
MODES = ["auto", "legacy"]
ANY = TypeAdapter(dict[str, Any])


class TasksExtension(ClientExtension):
    """Declares the tasks extension in each request's capabilities (2026-07-28)."""

    identifier = TASKS


@asynccontextmanager
async def connected(server: Server, mode: str, *, tasks: bool = False) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token_for(USER, agent=AGENT)}"}
    extensions = [TasksExtension()] if tasks else []
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
        async with Client(transport, mode=mode, extensions=extensions) as client:  # type: ignore[arg-type]
            yield client


def tasks_request(method: str, task_id: str) -> Any:
    if method == "tasks/get":
        return types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
    if method == "tasks/cancel":
        return types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
    params = types.RequestParams.model_validate({"taskId": task_id})
    return types.Request(method=method, params=params)


async def refusal(client: Client, request: Any) -> types.ErrorData:
    with pytest.raises(MCPError) as caught:
        await client.session.send_request(request, ANY)
    return caught.value.error


def no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert logged == [], [r.getMessage() for r in logged]


@pytest.mark.parametrize("mode", MODES)
async def test_it_advertises_what_it_serves_and_its_version(server: Server, mode: str) -> None:
    async with connected(server, mode) as client:
        capabilities = client.server_capabilities
        info = client.server_info
        tools = await client.list_tools()
    assert capabilities.tools is not None and not capabilities.tools.list_changed
    assert capabilities.prompts is None and capabilities.resources is None
    assert capabilities.logging is None and capabilities.completions is None
    if mode == "auto":
        assert capabilities.extensions == {TASKS: {}}
    assert info is not None and info.name == "parley"
    assert info.version == version("parley") != ""
    assert {t.name for t in tools.tools} >= {"add_task", "ask_user"}


@pytest.mark.parametrize("mode", MODES)
async def test_prompts_and_resources_are_not_found_without_a_traceback(
    server: Server, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with connected(server, mode) as client:
        for call, method in (
            (client.list_prompts(), "prompts/list"),
            (client.get_prompt("summarise"), "prompts/get"),
            (client.list_resources(), "resources/list"),
            (client.list_resource_templates(), "resources/templates/list"),
            (client.read_resource("parley://tasks"), "resources/read"),
        ):
            with pytest.raises(MCPError) as caught:
                await call
            assert caught.value.error.code == types.METHOD_NOT_FOUND, (method, caught.value)
        # ...and the connection serves on.
        assert (await client.call_tool("list_tasks", {})).is_error is False
    no_errors_logged(caplog)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("method", ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"])
async def test_tasks_methods_need_the_extension_declared(
    server: Server, mode: str, method: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with connected(server, mode) as client:
        error = await refusal(client, tasks_request(method, "a-made-up-id"))
    assert error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY == -32021
    assert error.data == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    no_errors_logged(caplog)


async def test_with_the_extension_only_its_own_methods_answer(server: Server) -> None:
    """Declared (2026-07-28): tasks/get and tasks/cancel look the id up (-32602 for an
    unknown one); tasks/result and tasks/list are no methods of the extension (-32601)."""
    async with connected(server, "auto", tasks=True) as client:
        for method, code in (
            ("tasks/get", types.INVALID_PARAMS),
            ("tasks/cancel", types.INVALID_PARAMS),
            ("tasks/result", types.METHOD_NOT_FOUND),
            ("tasks/list", types.METHOD_NOT_FOUND),
        ):
            assert (await refusal(client, tasks_request(method, "a-made-up-id"))).code == code


@pytest.mark.parametrize("mode", MODES)
async def test_a_real_task_is_untouched_by_a_request_without_the_extension(
    server: Server, mode: str
) -> None:
    """The task's owner, without the extension, cannot read or cancel it through `tasks/`:
    the question stays open, and the same owner with the extension still gets it."""
    wire = Wire(server.base_url, USER, AGENT)
    created = await wire.call("ask_user", {"question": "Which colour?"})
    assert created["resultType"] == "task", created
    task_id = created["taskId"]
    async with connected(server, mode) as client:
        for method in ("tasks/get", "tasks/cancel"):
            error = await refusal(client, tasks_request(method, task_id))
            assert error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY, method
    open_questions = await server.client.get(f"/api/{USER}/questions", headers=server.headers(USER))
    assert [q["status"] for q in open_questions.json()] == ["open"]
    async with connected(server, "auto", tasks=True) as client:
        polled = await client.session.send_request(tasks_request("tasks/get", task_id), ANY)
    assert polled["taskId"] == task_id and polled["status"] == "working"


async def test_stdio_says_the_same(migrated: str, tmp_path: Path) -> None:
    """`parley mcp` builds the same server: the same version, the same capabilities."""
    async with stdio_client(migrated, tmp_path, "--user", USER) as client:
        info, capabilities = client.server_info, client.server_capabilities
        with pytest.raises(MCPError) as caught:
            await client.list_prompts()
    assert info is not None and info.version == version("parley")
    assert capabilities.prompts is None and capabilities.resources is None
    assert capabilities.tools is not None
    assert caught.value.error.code == types.METHOD_NOT_FOUND
