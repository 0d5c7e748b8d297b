"""Work sessions on two `parley serve` processes when things break: an owner killed with -9,
PostgreSQL restarted under live sessions, each instance restarted in turn. Every session is
owned by exactly one live instance, no `claude` outlives its owner by more than seconds, and
nobody kills what another instance runs."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from parley.db import Database
from tests.conftest import eventually, spawn_server, token_for
from tests.fault.test_database_restart import Restartable
from tests.work.conftest import needs_cli
from tests.work.fake_anthropic import FakeAnthropic, bash, say
from tests.work.test_robustness import alive

pytestmark = [needs_cli, pytest.mark.fault, pytest.mark.slow, pytest.mark.timeout(240)]

USER = "kim"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic().running() as running:
        yield running


@pytest.fixture
async def postgres() -> AsyncIterator[Restartable]:
    from parley.migrate import upgrade

    pg = await asyncio.to_thread(Restartable)
    try:
        await asyncio.to_thread(upgrade, pg.url)
        yield pg
    finally:
        await asyncio.to_thread(pg.close)


@pytest.fixture
def work_env(fake: FakeAnthropic, tmp_path: Path, claude_home: Path) -> dict[str, str]:
    return {
        "HOME": str(claude_home),
        "PARLEY_WORK_ENABLED": "1",
        "PARLEY_WORK_PERMISSION_MODE": "none",
        "PARLEY_WORKSPACE_ROOT": str(tmp_path / "workspaces"),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
    }


def client(base: str) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token_for(USER)}"}
    return httpx.AsyncClient(base_url=base, headers=headers, timeout=60)


async def new_work(base: str) -> int:
    async with client(base) as c:
        created = await c.post(f"/api/{USER}/conversations", json={"mode": "work"})
    assert created.status_code == 201, created.text
    return int(created.json()["id"])


async def chat(base: str, conversation: int, text: str) -> httpx.Response:
    async with client(base) as c:
        return await c.post(
            f"/api/{USER}/chat", json={"conversation_id": conversation, "message": text}
        )


async def chat_until_answered(base: str, conversation: int, text: str) -> httpx.Response:
    """Send as a person would after an outage: again until it is answered (the first try
    may meet the database still coming back)."""
    deadline = time.monotonic() + 30
    while True:
        reply = await chat(base, conversation, text)
        if reply.status_code == 200 or time.monotonic() > deadline:
            return reply
        await asyncio.sleep(0.2)


async def session_row(db: Database, conversation: int) -> dict[str, Any]:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "SELECT * FROM work_sessions WHERE conversation_id = $1", conversation
        )
    assert row is not None
    return dict(row)


def tree(pid: int) -> list[int]:
    try:
        root = psutil.Process(pid)
        return [pid, *(p.pid for p in root.children(recursive=True))]
    except psutil.Error:
        return []


async def test_kill_9_of_the_owner_ends_its_processes_and_the_prompt_followed_elsewhere(
    migrated: str, db: Database, fake: FakeAnthropic, work_env: dict[str, str]
) -> None:
    fake.script(bash("tail -f /dev/null"))
    env = work_env
    owner, base_a = await spawn_server(migrated, **env)
    _, base_b = await spawn_server(migrated, **env)
    conversation = await new_work(base_a)
    async with client(base_a) as c:
        sent = await c.post(
            f"/api/{USER}/conversations/{conversation}/messages", json={"text": "wait"}
        )
    assert sent.status_code == 201

    async def running() -> bool:  # claude and its command
        row = await session_row(db, conversation)
        return row["pid"] is not None and len(tree(row["pid"])) >= 2

    await eventually(running, within=30)
    pids = tree((await session_row(db, conversation))["pid"])
    # A prompt through B, queued behind the running command on A: B follows it.
    followed = asyncio.create_task(chat(base_b, conversation, "and then?"))

    async def queued() -> bool:
        async with db.connection() as conn:
            count = await conn.fetchval(
                "SELECT count(*) FROM messages WHERE conversation_id = $1 AND role = 'user'",
                conversation,
            )
        return bool(count == 2)

    await eventually(queued, within=10)
    owner.send_signal(signal.SIGKILL)  # the server alone: its claude has a group of its own
    await owner.wait()
    killed_at = time.monotonic()

    async def all_gone() -> bool:
        return not [pid for pid in pids if alive(pid)]

    await eventually(all_gone, within=10)
    reply = await asyncio.wait_for(followed, timeout=10)
    assert time.monotonic() - killed_at < 12
    assert reply.status_code == 502, reply.text
    assert "server running this session stopped" in reply.json()["error"]["message"]
    async with client(base_b) as c:
        history = (
            await c.get(f"/api/{USER}/conversations/{conversation}/messages", params={"limit": 50})
        ).json()
        state = (await c.get(f"/api/{USER}/conversations/{conversation}/work")).json()
    assert any(
        m["error"] and "server running this session stopped" in m["content"] for m in history
    )
    assert state["status"] == "ended"
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM agent_runs") == "failed"


async def test_database_restart_then_each_instance_restarted_kills_nothing_it_should_not(
    postgres: Restartable, fake: FakeAnthropic, work_env: dict[str, str]
) -> None:
    fake.default = say("ok")
    env = work_env
    servers: dict[str, tuple[asyncio.subprocess.Process, str]] = {
        "a": await spawn_server(postgres.url, **env),
        "b": await spawn_server(postgres.url, **env),
    }
    db = await Database.connect(postgres.url, max_connections=2)
    try:
        on = {name: await new_work(servers[name][1]) for name in servers}
        for name, conversation in on.items():
            assert (await chat(servers[name][1], conversation, "hello")).status_code == 200
        before = {name: (await session_row(db, c))["pid"] for name, c in on.items()}

        await asyncio.to_thread(postgres.restart, 1.0)
        # Both sessions still answer, each from its own process, through either instance.
        for name, conversation in on.items():
            for via in servers.values():
                reply = await chat_until_answered(via[1], conversation, "still there?")
                assert reply.status_code == 200, reply.text
            assert (await session_row(db, conversation))["pid"] == before[name]
        await owned_by_live_instances(db, servers, on)

        for restarted in ("b", "a"):
            other = "a" if restarted == "b" else "b"
            process, base = servers[restarted]
            process.send_signal(signal.SIGTERM)
            await process.wait()
            port = int(base.rsplit(":", 1)[1])
            servers[restarted] = await spawn_server(postgres.url, port=port, **env)
            # The other instance and its session live on, untouched.
            row = await session_row(db, on[other])
            assert row["pid"] == before[other] and alive(before[other])
            reply = await chat(servers[other][1], on[other], "you are still here")
            assert reply.status_code == 200, reply.text
            assert (await session_row(db, on[other]))["pid"] == before[other]
            # The restarted one's session ended with it; writing again resumes it there.
            assert not alive(before[restarted])
            reply = await chat(servers[restarted][1], on[restarted], "back?")
            assert reply.status_code == 200, reply.text
            before[restarted] = (await session_row(db, on[restarted]))["pid"]
            await owned_by_live_instances(db, servers, on)
    finally:
        await db.close()


async def owned_by_live_instances(
    db: Database, servers: dict[str, tuple[asyncio.subprocess.Process, str]], on: dict[str, int]
) -> None:
    """Every session with a process is held by a live server, and every `claude` any run
    ever had is either gone or the process of such a session."""
    live = {process.pid for process, _ in servers.values()}
    async with db.connection() as conn:
        rows = [dict(r) for r in await conn.fetch("SELECT * FROM work_sessions")]
        pids = [r["pid"] for r in await conn.fetch("SELECT pid FROM agent_runs")]
    assert len(rows) == len(on)
    held = {r["pid"]: r for r in rows if r["pid"] is not None}
    for row in held.values():
        assert row["owner"] is not None and row["owner_pid"] in live
    for pid in pids:
        assert pid is None or not alive(pid) or pid in held
