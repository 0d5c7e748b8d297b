"""Nothing outlives the server: SIGTERM kills every session's tree, and a server that died
without doing so has its sessions failed and its processes killed at the next start-up."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from parley.db import Database
from parley.work.proctree import TAG
from tests.conftest import spawn_server, token_for
from tests.work.conftest import needs_cli
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_sigterm_leaves_no_session_process_behind(
    migrated: str, db: Database, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    fake_api.script(bash("tail -f /dev/null & echo started"), say("Left it running"))
    process, base = await spawn_server(
        migrated,
        PARLEY_WORK_ENABLED="1",
        PARLEY_WORK_PERMISSION_MODE="none",
        PARLEY_WORKSPACE_ROOT=str(tmp_path / "workspaces"),
        ANTHROPIC_BASE_URL=fake_api.url,
        ANTHROPIC_API_KEY="x",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude-config"),
    )
    headers = {"Authorization": f"Bearer {token_for('ann')}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
        created = await client.post("/api/ann/conversations", json={"mode": "work"})
        conversation = created.json()["id"]
        reply = await client.post(
            "/api/ann/chat", json={"conversation_id": conversation, "message": "go"}
        )
        assert reply.status_code == 200, reply.text
    async with db.connection() as conn:
        pid = await conn.fetchval("SELECT pid FROM agent_runs WHERE conversation_id = $1", 1)
    tag = _tag(psutil.Process(pid))
    session = [p.pid for p in psutil.process_iter() if tag and _tag(p) == tag]
    assert pid in session and len(session) >= 2  # claude and the background command
    process.send_signal(signal.SIGTERM)
    async with asyncio.timeout(40):
        await process.wait()
    assert not [p for p in session if alive(p)]
    async with db.connection() as conn:
        status = await conn.fetchval("SELECT status FROM agent_runs WHERE conversation_id = $1", 1)
    assert status == "cancelled"


def _tag(proc: psutil.Process, default: Any = None) -> Any:
    try:
        return proc.environ().get(TAG, default)
    except psutil.Error:
        return default


async def test_startup_fails_a_dead_servers_sessions_and_kills_their_processes(
    work_server: Any, db: Database
) -> None:
    async with db.connection() as conn:
        conversation = await conn.fetchval(
            "INSERT INTO conversations (user_id, mode, title) VALUES ('ann', 'work', 'w')"
            " RETURNING id"
        )
        run_id = await conn.fetchval(
            """INSERT INTO agent_runs (user_id, agent, kind, status, conversation_id, instance)
            VALUES ('ann', 'claude-code', 'work', 'running', $1, $2) RETURNING id""",
            conversation,
            f"{socket.gethostname()}/deadserver01",
        )
    # What the dead server left: its "claude" and a command that left claude's tree.
    env = {**os.environ, TAG: f"{socket.gethostname()}/deadserver01/{run_id}"}
    left = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import time; time.sleep(120)", "claude", env=env
        )
        for _ in range(2)
    ]
    async with db.connection() as conn:
        await conn.execute("UPDATE agent_runs SET pid = $1 WHERE id = $2", left[0].pid, run_id)
    async with work_server():
        async with db.connection() as conn:
            row = await conn.fetchrow("SELECT status, error FROM agent_runs WHERE id = $1", run_id)
        assert row["status"] == "failed" and "stopped" in row["error"]
        for process in left:
            async with asyncio.timeout(10):
                # Both sleep for two minutes, so ending now is the kill. The server runs in
                # this test's process, whose children these are: when its kill reaps them
                # before asyncio's watcher does, asyncio can only report 255 ("unknown").
                assert await process.wait() in (-signal.SIGKILL, 255)
