"""MCP over streamable HTTP at /mcp, driven by the official `mcp` client against a real server.

Effects are checked through the REST API (`GET /api/{user}/tasks`), not through the tools
themselves, so a tool that lies about what it did fails here.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import jwt
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from parley.tools.identity import USER_META_KEY
from tests.conftest import SECRET, Server, token_for
from tests.tools.results import INITIALIZE, data, rest_tasks, text

TOOLS = {"add_task", "list_tasks", "complete_task", "delete_task", "update_task"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def mcp_client(
    base_url: str, token: str | None, *, mode: str = "auto", statuses: list[int] | None = None
) -> AsyncIterator[Client]:
    """The official client; `statuses` collects the HTTP status of every response it got."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}

    async def record(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    hooks = {"response": [record]}
    async with httpx2.AsyncClient(headers=headers, timeout=30, event_hooks=hooks) as http:
        transport = streamable_http_client(f"{base_url}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:  # type: ignore[arg-type]
            yield client


async def post_initialize(server: Server, headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(
            f"{server.base_url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}
        )


def assert_401(response: httpx2.Response, base_url: str) -> None:
    """The MCP SDK's answer to a missing or bad token: 401 with the OAuth protected-resource
    metadata's address (RFC 9728), which MCP clients read as "authentication required"."""
    assert response.status_code == 401, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"] == "invalid_token"
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    metadata = f"{base_url}/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata}"' in challenge


async def test_the_protected_resource_metadata_names_the_mcp_endpoint(server: Server) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.get(f"{server.base_url}/.well-known/oauth-protected-resource/mcp")
    assert response.status_code == 200, response.text
    assert response.json()["resource"] == f"{server.base_url}/mcp"


async def test_no_token_is_a_401_json_error(server: Server) -> None:
    assert_401(await post_initialize(server, {}), server.base_url)
    assert_401(
        await post_initialize(server, {"Authorization": "Basic YWxpY2U6eA=="}), server.base_url
    )
    statuses: list[int] = []
    with pytest.raises(Exception):  # noqa: B017 (the SDK wraps the 401 in its own error)
        async with mcp_client(server.base_url, None, statuses=statuses) as client:
            await client.list_tools()
    assert statuses and set(statuses) == {401}


@pytest.mark.parametrize(
    "token",
    [
        "not-a-jwt",
        jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, "another-" + SECRET, "HS256"),
        jwt.encode({"sub": "alice", "exp": int(time.time()) - 60}, SECRET, "HS256"),
        jwt.encode({"sub": "alice"}, SECRET, "HS256"),  # no exp
        jwt.encode({"sub": "alice", "exp": int(time.time()) + 60}, "", "none"),
    ],
    ids=["garbage", "wrong-secret", "expired", "no-exp", "alg-none"],
)
async def test_invalid_tokens_are_401_and_touch_nothing(server: Server, token: str) -> None:
    assert_401(await post_initialize(server, {"Authorization": f"Bearer {token}"}), server.base_url)
    statuses: list[int] = []
    with pytest.raises(Exception):  # noqa: B017
        async with mcp_client(server.base_url, token, statuses=statuses) as client:
            await client.call_tool("add_task", {"title": "sneaky"})
    assert statuses and set(statuses) == {401}
    assert await rest_tasks(server, "alice") == []


# --- the tools -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_list_tools_and_call_each_one(server: Server, mode: str) -> None:
    async with mcp_client(server.base_url, token_for("alice"), mode=mode) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} >= TOOLS
        schema = next(t for t in listed.tools if t.name == "add_task").input_schema
        assert "user" not in json.dumps(schema).lower(), "no tool takes a user argument"

        added = data(await client.call_tool("add_task", {"title": "buy milk", "description": "2L"}))
        assert added["status"] == "created" and added["title"] == "buy milk"
        task_id = added["task_id"]
        [stored] = await rest_tasks(server, "alice")
        assert stored["number"] == task_id and stored["title"] == "buy milk"
        assert stored["description"] == "2L" and stored["completed"] is False

        listed_tasks = data(await client.call_tool("list_tasks", {"status": "pending"}))
        assert [t["task_id"] for t in listed_tasks["tasks"]] == [task_id]
        assert listed_tasks["count"] == 1

        updated = data(
            await client.call_tool("update_task", {"task_id": task_id, "title": "buy oat milk"})
        )
        assert updated == {"task_id": task_id, "status": "updated", "title": "buy oat milk"}
        [stored] = await rest_tasks(server, "alice")
        assert stored["title"] == "buy oat milk"

        done = data(await client.call_tool("complete_task", {"task_id": task_id}))
        assert done["status"] == "completed"
        [stored] = await rest_tasks(server, "alice")
        assert stored["completed"] is True
        pending = data(await client.call_tool("list_tasks", {"status": "pending"}))
        assert pending["count"] == 0

        deleted = data(await client.call_tool("delete_task", {"task_id": task_id}))
        assert deleted["status"] == "deleted"
        assert await rest_tasks(server, "alice") == []


async def test_two_users_see_and_change_only_their_own_tasks(server: Server) -> None:
    async with (
        mcp_client(server.base_url, token_for("alice")) as alice,
        mcp_client(server.base_url, token_for("bob")) as bob,
    ):
        a_first = data(await alice.call_tool("add_task", {"title": "alice's first"}))["task_id"]
        a_id = data(await alice.call_tool("add_task", {"title": "alice's task"}))["task_id"]
        b_id = data(await bob.call_tool("add_task", {"title": "bob's task"}))["task_id"]
        # Numbers are per user: each starts at 1, and bob has no task 2.
        assert (a_first, a_id, b_id) == (1, 2, 1)

        a_list = data(await alice.call_tool("list_tasks", {}))
        b_list = data(await bob.call_tool("list_tasks", {}))
        assert [t["task_id"] for t in a_list["tasks"]] == [a_first, a_id]
        assert [t["task_id"] for t in b_list["tasks"]] == [b_id]

        for name, args in [
            ("complete_task", {"task_id": a_id}),
            ("delete_task", {"task_id": a_id}),
            ("update_task", {"task_id": a_id, "title": "mine now"}),
        ]:
            result = await bob.call_tool(name, args)
            assert result.is_error, name
            assert "not found" in text(result).lower()

    [_, a_task] = await rest_tasks(server, "alice")
    assert a_task["number"] == a_id
    assert a_task["title"] == "alice's task" and a_task["completed"] is False
    [b_task] = await rest_tasks(server, "bob")
    assert (b_task["number"], b_task["completed"]) == (b_id, False)


async def test_identity_comes_from_the_token_only(server: Server) -> None:
    """Neither a stray argument nor the in-process server's `_meta` key names the user."""
    async with mcp_client(server.base_url, token_for("alice")) as alice:
        await alice.call_tool("add_task", {"title": "via meta"}, meta={USER_META_KEY: "bob"})  # type: ignore[arg-type]
        await alice.call_tool("add_task", {"title": "via argument", "user_id": "bob"})
    assert await rest_tasks(server, "bob") == []
    titles = sorted(t["title"] for t in await rest_tasks(server, "alice"))
    assert titles == ["via argument", "via meta"]


async def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(server: Server) -> None:
    async with mcp_client(server.base_url, token_for("alice")) as client:
        bad_calls: list[tuple[str, dict[str, Any]]] = [
            ("complete_task", {"task_id": "three"}),
            ("complete_task", {}),
            ("delete_task", {"task_id": [1]}),
            ("add_task", {"title": {"nested": True}}),
            ("add_task", {"title": "   "}),
            ("add_task", {"title": "x" * 501}),
            ("list_tasks", {"status": "someday"}),
            ("update_task", {"task_id": 1, "title": 7}),
            ("complete_task", {"task_id": 999_999}),
        ]
        for name, args in bad_calls:
            result = await client.call_tool(name, args)
            assert result.is_error, (name, args, result)
            assert text(result), "the error says what went wrong"
        assert await rest_tasks(server, "alice") == []

        # The same connection still works, and so does a new one.
        added = data(await client.call_tool("add_task", {"title": "still here"}))
    async with mcp_client(server.base_url, token_for("alice")) as again:
        listed = data(await again.call_tool("list_tasks", {}))
    assert [t["task_id"] for t in listed["tasks"]] == [added["task_id"]]


async def test_unknown_tool_is_an_error_not_a_crash(server: Server) -> None:
    async with mcp_client(server.base_url, token_for("alice")) as client:
        result = await client.call_tool("drop_database", {})
        assert result.is_error and "Unknown tool: drop_database" in text(result)
        assert data(await client.call_tool("list_tasks", {}))["count"] == 0


# --- transport details -----------------------------------------------------------------


async def test_a_rebound_name_is_refused_by_default(server: Server) -> None:
    """DNS rebinding: a page at evil.example.net points its name at this machine and posts
    to /mcp, so `Host` and `Origin` are its own. Even with a token in hand (say a leaked
    one), it is refused; loopback at any port, and the public URL's host, are served."""
    auth = {"Authorization": f"Bearer {token_for('alice')}"}
    port = server.base_url.rsplit(":", 1)[1]
    for host in [
        "evil.example.net",
        f"evil.example.net:{port}",
        "127.0.0.1.evil.example.net",
        "localhost.evil.example.net:80",
        "0.0.0.0",
        "127.0.0.2",
    ]:
        refused = await post_initialize(server, {**auth, "Host": host})
        assert refused.status_code == 421, (host, refused.text)
    for origin in [
        "http://evil.example.net",
        f"http://evil.example.net:{port}",
        "http://127.0.0.1.evil.example.net",
        "null",
        "file://",
    ]:
        refused = await post_initialize(server, {**auth, "Origin": origin})
        assert refused.status_code == 403, (origin, refused.text)
    for host in [f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "[::1]:9"]:
        served = await post_initialize(server, {**auth, "Host": host})
        assert served.status_code == 200, (host, served.text)
    for origin in [f"http://localhost:{port}", "http://127.0.0.1:6274", "http://127.0.0.1:3000"]:
        served = await post_initialize(server, {**auth, "Origin": origin})
        assert served.status_code == 200, (origin, served.text)


async def test_a_star_accepts_any_host(make_server: Any) -> None:
    async with make_server(PARLEY_MCP_ALLOWED_HOSTS="*") as server:
        auth = {"Authorization": f"Bearer {token_for('alice')}"}
        response = await post_initialize(server, {**auth, "Host": "parley.example.com"})
        assert response.status_code == 200, response.text


async def test_allowed_hosts_turn_on_the_host_check(make_server: Any) -> None:
    async with make_server(PARLEY_MCP_ALLOWED_HOSTS="parley.example.com") as server:
        auth = {"Authorization": f"Bearer {token_for('alice')}"}
        bad = await post_initialize(server, {**auth, "Host": "evil.example.net"})
        assert bad.status_code == 421
        good = await post_initialize(server, {**auth, "Host": "parley.example.com"})
        assert good.status_code == 200, good.text
        # Authentication still comes first: no token, no hint about hosts.
        assert_401(await post_initialize(server, {"Host": "evil.example.net"}), server.base_url)


async def test_mcp_requests_count_against_the_rate_cap(make_server: Any) -> None:
    async with make_server(PARLEY_RATE_LIMIT_PER_MINUTE=3) as server:
        auth = {"Authorization": f"Bearer {token_for('alice')}"}
        statuses = [(await post_initialize(server, auth)).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        # Another user has their own allowance.
        other = await post_initialize(server, {"Authorization": f"Bearer {token_for('bob')}"})
        assert other.status_code == 200
