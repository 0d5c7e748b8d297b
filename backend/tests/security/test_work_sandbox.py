"""Mallory attacks from inside her own work session: the real `claude` CLI, driven by the fake
Messages API to make exactly the tool calls an attacker would, in a real sandbox, through the
real model relay. Every attempt runs, fails, and its failure is in Mallory's conversation;
Bob's files, the server's secrets and the operator's key stay out of it.

The door (see specs/security.md, *Work sessions*): a session's Read/Write/Bash run as whoever
writes in the conversation. Before the sandbox, `Read <root>/bob/secret.txt` printed Bob's
file, `/proc/<server pid>/environ` printed PARLEY_AUTH_SECRET and DATABASE_URL, and `env`
printed the operator's ANTHROPIC_API_KEY.
"""

from __future__ import annotations

import os
import shlex
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from parley.db import Database
from parley.work import sandbox
from tests.conftest import SECRET, spawn_server, token_for
from tests.tools.results import text
from tests.tools.test_mcp_http import mcp_client
from tests.work.conftest import OPERATOR_KEY, RESULT_WITHIN, needs_cli
from tests.work.fake_anthropic import FakeAnthropic, Reply, ToolUse, say

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(400)]

BOBS_SECRET = "bob's launch codes 4417"
PYTHON = sandbox.python_runtime()[0]  # the Python a sandbox has (the server's, read-only)


def bash(command: str) -> ToolUse:
    return ToolUse("Bash", {"command": command, "description": "look around"})


def client(base: str, user: str) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token_for(user)}"}
    return httpx.AsyncClient(base_url=base, headers=headers, timeout=RESULT_WITHIN)


async def run(
    base: str, fake: FakeAnthropic, user: str, prompt: str, calls: list[ToolUse]
) -> tuple[int, dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """`user` writes `prompt` in a new work conversation; the model makes `calls` one after the
    other. The conversation, each call's stored result (by call id), and all its messages."""
    fake.script_for(prompt, *[Reply([call]) for call in calls], say("Done looking."))
    async with client(base, user) as c:
        created = await c.post(f"/api/{user}/conversations", json={"mode": "work"})
        conversation = created.json()["id"]
        reply = await c.post(
            f"/api/{user}/chat", json={"conversation_id": conversation, "message": prompt}
        )
        assert reply.status_code == 200, reply.text
        found = (
            await c.get(f"/api/{user}/conversations/{conversation}/messages", params={"limit": 200})
        ).json()
    results = {
        m["meta"]["tool_use_id"]: m for m in found if (m["meta"] or {}).get("type") == "tool_result"
    }
    assert set(results) >= {call.id for call in calls}, "every attempt ran"
    return conversation, {call.id: results[call.id] for call in calls}, found


def failed(result: dict[str, Any], *signs: str) -> bool:
    """The call's result, as Mallory's conversation shows it, says it failed."""
    return bool(result["meta"].get("is_error")) or any(s in result["content"] for s in signs)


NOT_THERE = ("No such file or directory", "does not exist", "Permission denied")


async def uid_of(db: Database, user: str) -> int:
    async with db.connection() as conn:
        uid = await conn.fetchval("SELECT uid FROM work_uids WHERE user_id = $1", user)
    assert isinstance(uid, int)
    return uid


@pytest.mark.skipif(os.geteuid() != 0, reason="per-person uids take a server running as root")
async def test_mallory_cannot_read_write_or_link_her_way_into_bobs_folder_or_the_data_dir(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        root, data_dir = server.settings.workspaces, server.settings.data_dir
        bob = root / "bob"
        # Bob keeps a secret in his own folder, written by his own session.
        write = ToolUse("Write", {"file_path": str(bob / "secret.txt"), "content": BOBS_SECRET})
        await run(server.base_url, fake_api, "bob", "bob saves a note", [write])
        assert (bob / "secret.txt").read_text() == BOBS_SECRET
        bobs_uid = await uid_of(db, "bob")

        calls = {
            "read": ToolUse("Read", {"file_path": str(bob / "secret.txt")}),
            "read ..": ToolUse("Read", {"file_path": f"{root}/mallory/../bob/secret.txt"}),
            "write": ToolUse("Write", {"file_path": str(bob / "planted.txt"), "content": "m"}),
            "cat": bash(f"cat {bob}/secret.txt; ls {root}; ls -la {bob}"),
            "cat ..": bash("cat ../bob/secret.txt; echo m > ../bob/planted.txt"),
            "link bob": bash(
                f"ln -s {bob} bobs; ls bobs/; cat bobs/secret.txt; echo m > bobs/planted.txt"
            ),
            "read link": ToolUse("Read", {"file_path": f"{root}/mallory/bobs/secret.txt"}),
            "link data": bash(f"ln -s {data_dir} data; ls data/ data/work-homes/ {data_dir}"),
            "find": bash(f"find / -xdev -name secret.txt 2>&1 | head; grep -rl launch {root}"),
        }
        _, results, found = await run(
            server.base_url, fake_api, "mallory", "mallory looks around", list(calls.values())
        )
        by_name = {name: results[call.id] for name, call in calls.items()}
        # Nothing of Bob's reached her conversation, in any message.
        assert not [m for m in found if "launch codes" in m["content"]]
        # Each attempt failed, visibly.
        for name in ("read", "read ..", "read link"):
            assert failed(by_name[name], *NOT_THERE), by_name[name]
        assert failed(by_name["write"], "Read-only file system", *NOT_THERE), by_name["write"]
        for name in ("cat", "cat ..", "link bob", "link data"):
            assert "No such file or directory" in by_name[name]["content"], by_name[name]
        # Her view of the root: her own folder only.
        assert "mallory" in by_name["cat"]["content"] and "bob\n" not in by_name["cat"]["content"]
        assert "secret.txt" not in by_name["find"]["content"]

        # Bob's folder is as he left it, his and closed; the links she made changed nothing
        # when her folder was made hers again for her next session.
        await run(server.base_url, fake_api, "mallory", "mallory comes back", [bash("ls -la")])
        assert sorted(os.listdir(bob)) == ["secret.txt"]
        assert (bob / "secret.txt").read_text() == BOBS_SECRET
        assert os.stat(bob).st_uid == bobs_uid and stat.S_IMODE(os.stat(bob).st_mode) == 0o700
        assert os.stat(bob / "secret.txt").st_uid == bobs_uid
        assert os.stat(data_dir).st_uid == 0 and os.stat(data_dir / "work-homes").st_uid == 0
        assert (root / "mallory" / "bobs").is_symlink()  # the link is there, and led nowhere

        # Nor does naming her link as a workspace start a session in Bob's folder.
        async with mcp_client(server.base_url, token_for("mallory")) as mcp:
            refused = await mcp.call_tool(
                "start_work_session", {"prompt": "read", "workspace": "bobs"}
            )
        assert refused.is_error and "outside your own folder" in text(refused)


@pytest.fixture
def spawned_env(fake_api: FakeAnthropic, tmp_path: Path) -> dict[str, str]:
    return {
        "PARLEY_WORK_ENABLED": "1",
        "PARLEY_WORK_PERMISSION_MODE": "none",
        "PARLEY_WORKSPACE_ROOT": str(tmp_path / "workspaces"),
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
        "ANTHROPIC_BASE_URL": fake_api.url,
        "ANTHROPIC_API_KEY": OPERATOR_KEY,
    }


def database_socket(url: str) -> Path:
    """The embedded PostgreSQL's Unix socket (it listens on nothing else)."""
    parts = urlsplit(url)
    folder = parse_qs(parts.query)["host"][0]
    return Path(folder) / f".s.PGSQL.{parts.port or 5432}"


def environ_of(pid: int) -> str:
    return Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")


CONNECT = """
import socket, sys
for target in sys.argv[1:]:
    try:
        if target.startswith("/"):
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(5)
            s.connect(target)
        else:
            s = socket.create_connection(("127.0.0.1", int(target)), timeout=5)
        print(target, "OPEN")
    except OSError as exc:
        print(target, "unreachable:", type(exc).__name__, exc)
"""


async def test_mallory_sees_no_server_process_no_secret_and_reaches_no_host_port(
    migrated: str, fake_api: FakeAnthropic, spawned_env: dict[str, str]
) -> None:
    process, base = await spawn_server(migrated, **spawned_env)
    server_pid = process.pid
    port = int(base.rsplit(":", 1)[1])
    fake_port = int(fake_api.url.rsplit(":", 1)[1])
    pg_socket = database_socket(migrated)
    # What the attack found before: the server's environment holds all of it, and its ports
    # answer on this host.
    assert SECRET in environ_of(server_pid) and OPERATOR_KEY in environ_of(server_pid)
    assert "DATABASE_URL=" in environ_of(server_pid) and pg_socket.exists()
    for host_port in (port, fake_port):
        socket.create_connection(("127.0.0.1", host_port), timeout=5).close()
    assert server_pid > 100  # never one of the sandbox's own few pids

    calls = {
        "ls proc": bash("ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '"),
        "server environ": bash(f"tr '\\0' '\\n' < /proc/{server_pid}/environ; echo status=$?"),
        "read environ": ToolUse("Read", {"file_path": f"/proc/{server_pid}/environ"}),
        "init environ": bash("tr '\\0' '\\n' < /proc/1/environ; echo status=$?"),
        "env": bash("env | sort"),
        "data dir": bash(f"ls -la {spawned_env['PARLEY_DATA_DIR']} {pg_socket.parent}"),
        "connect": bash(
            f"{PYTHON} -I -c {shlex.quote(CONNECT)} {port} {fake_port} 5432 {pg_socket};"
            " ls /run/parley"
        ),
    }
    _, results, found = await run(base, fake_api, "mallory", "mallory probes", list(calls.values()))
    out = {name: results[call.id]["content"] for name, call in calls.items()}

    for message in found:  # no secret of the server's, in any message of hers
        for secret in (SECRET, OPERATOR_KEY, migrated.split("@")[0], "PARLEY_", "DATABASE_URL"):
            assert secret not in message["content"], (secret, message["content"][:500])
    sandbox_pids = out["ls proc"].split()
    assert "1" in sandbox_pids and str(server_pid) not in sandbox_pids  # a /proc of its own
    assert len(sandbox_pids) < 30
    assert "No such file or directory" in out["server environ"]
    assert failed(results[calls["read environ"].id], *NOT_THERE)
    assert "Permission denied" in out["init environ"]  # pid 1 is bwrap's, not hers
    env = dict(line.split("=", 1) for line in out["env"].splitlines() if "=" in line)
    assert env["ANTHROPIC_API_KEY"].startswith("parley-relay-")  # her session's token only
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert "No such file or directory" in out["data dir"]
    for target in (str(port), str(fake_port), "5432", str(pg_socket)):
        assert f"{target} unreachable:" in out["connect"], out["connect"]
    assert "OPEN" not in out["connect"]
    assert sorted(out["connect"].split()[-2:]) == ["forward.py", "relay.sock"]
    # The model was reached all the same: through the relay, with the operator's key.
    assert fake_api.credentials and set(fake_api.credentials) == {OPERATOR_KEY}


RELAY_CALL = """
import json, os, sys, urllib.request, urllib.error
body = json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]})
for label, token in (("bob's", sys.argv[1]), ("own", os.environ["ANTHROPIC_API_KEY"])):
    request = urllib.request.Request(
        os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=body.encode(),
        headers={"x-api-key": token, "content-type": "application/json"})
    try:
        print(label, urllib.request.urlopen(request, timeout=30).status)
    except urllib.error.HTTPError as exc:
        print(label, exc.code)
"""


@pytest.fixture
def no_relay_tokens_upstream(fake_api: FakeAnthropic) -> Iterator[None]:
    yield
    assert not [c for c in fake_api.credentials if c and "parley-relay-" in c]


async def test_another_sessions_relay_token_is_useless_to_mallory(
    work_server: Any, fake_api: FakeAnthropic, db: Database, no_relay_tokens_upstream: None
) -> None:
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        relay = server.app.services.work.relay
        await run(server.base_url, fake_api, "bob", "bob works", [bash("echo working")])
        # Say Mallory learnt the token of Bob's live session (she cannot: it is in his sandbox).
        [bobs] = [c for c in relay._channels if c.user_id == "bob"]
        script = f"{PYTHON} -I -c {shlex.quote(RELAY_CALL)} {bobs.token}"
        _, results, _ = await run(
            server.base_url, fake_api, "mallory", "mallory borrows", [bash(script)]
        )
        [tried] = results.values()
        assert "bob's 401" in tried["content"] and "own 200" in tried["content"], tried
        # Bob's session ends: his socket is gone and his token refused everywhere.
        async with client(server.base_url, "bob") as c:
            conversations = (await c.get("/api/bob/conversations")).json()
            for conversation in conversations:
                await c.post(f"/api/bob/conversations/{conversation['id']}/work/end")
        assert not bobs.socket.exists()
        _, results, _ = await run(
            server.base_url, fake_api, "mallory", "mallory tries again", [bash(script)]
        )
        [again] = results.values()
        assert "bob's 401" in again["content"] and "own 200" in again["content"], again
        usage = (await client(server.base_url, "bob").get("/api/bob/work/usage")).json()
        assert usage["total"]["requests"] == 2  # his own two model calls, none of hers
