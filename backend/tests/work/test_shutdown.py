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
from parley.work.ownership import started_at
from parley.work.proctree import TAG
from parley.work.session import session_tag
from tests.conftest import eventually, spawn_server, token_for
from tests.work.conftest import messages, needs_cli, work_state
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
        PARLEY_DATA_DIR=str(tmp_path / "data"),
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


async def _lapsed_session(
    db: Database, *, owner: str, owner_pid: int, owner_started: float, pid: int | None
) -> tuple[int, int]:
    """A conversation whose session's lease `owner` stopped renewing a second ago."""
    async with db.connection() as conn:
        conversation = await conn.fetchval(
            "INSERT INTO conversations (user_id, mode, title) VALUES ('ann', 'work', 'w')"
            " RETURNING id"
        )
        run_id = await conn.fetchval(
            """INSERT INTO agent_runs (user_id, agent, kind, status, conversation_id, instance,
            pid) VALUES ('ann', 'claude-code', 'work', 'running', $1, $2, $3) RETURNING id""",
            conversation,
            owner,
            pid,
        )
        await conn.execute(
            """INSERT INTO work_sessions (conversation_id, user_id, workspace, run_id, status,
            owner, lease_expires_at, host, owner_pid, owner_started, pid, pid_started)
            VALUES ($1, 'ann', 'ann', $2, 'working', $3, now() - interval '1 second', $4, $5,
            $6, $7, $8)""",
            conversation,
            run_id,
            owner,
            socket.gethostname(),
            owner_pid,
            owner_started,
            pid,
            started_at(pid) if pid else None,
        )
    return conversation, run_id


async def test_a_dead_servers_sessions_are_ended_and_their_processes_killed(
    work_server: Any, db: Database
) -> None:
    """A server killed with -9 leaves its lease to lapse: a live instance on its host kills
    the session's process group (and a command that left it), fails the run and says so in
    the conversation. A lapsed lease whose server is still running (cut off from the
    database for a while) is left alone."""
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    dead_started = started_at(dead.pid) or 0.0
    await dead.wait()
    owner = f"{socket.gethostname()}/deadserver01"
    # What the dead server left: its "claude", leading a group, and a command that left it.
    claude = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(120)", "claude", start_new_session=True
    )
    conversation, run_id = await _lapsed_session(
        db, owner=owner, owner_pid=dead.pid, owner_started=dead_started, pid=claude.pid
    )
    env = {**os.environ, TAG: session_tag(owner, run_id)}
    left = await asyncio.create_subprocess_exec(
        sys.executable, "-c", "import time; time.sleep(120)", env=env, start_new_session=True
    )
    me = os.getpid()
    cut_off, cut_off_run = await _lapsed_session(
        db,
        owner=f"{socket.gethostname()}/cutoff0001",
        owner_pid=me,
        owner_started=started_at(me) or 0.0,
        pid=None,
    )
    async with work_server() as server:
        for process in (claude, left):
            async with asyncio.timeout(10):
                # Both sleep for two minutes, so ending now is the kill. The server runs in
                # this test's process, whose children these are: when its kill reaps them
                # before asyncio's watcher does, asyncio can only report 255 ("unknown").
                assert await process.wait() in (-signal.SIGKILL, 255)

        async def failed() -> bool:
            async with db.connection() as conn:
                row = await conn.fetchrow(
                    "SELECT status, error FROM agent_runs WHERE id = $1", run_id
                )
            return row["status"] == "failed" and "stopped" in row["error"]

        await eventually(failed, within=10)
        said = await messages(server, "ann", conversation)
        assert any(
            m["error"] and "server running this session stopped" in m["content"] for m in said
        )
        assert (await work_state(server, "ann", conversation))["status"] == "ended"
        async with db.connection() as conn:
            kept = await conn.fetchrow(
                "SELECT owner, status FROM work_sessions WHERE conversation_id = $1", cut_off
            )
            run = await conn.fetchval("SELECT status FROM agent_runs WHERE id = $1", cut_off_run)
        assert kept["owner"].endswith("cutoff0001") and kept["status"] == "working"
        assert run == "running"


async def test_a_restart_under_a_session_keeps_its_one_run_until_the_person_ends_it(
    migrated: str, db: Database, fake_api: FakeAnthropic, tmp_path: Path
) -> None:
    """The Runs panel lists a work session once: a server restarted (twice) under it carries
    on the same run, which ends only at the person's End; the session after that End is a
    new run."""
    fake_api.script(say("First"), say("Second"), say("Third"), say("Fourth"))
    env = {
        "PARLEY_WORK_ENABLED": "1",
        "PARLEY_WORK_PERMISSION_MODE": "none",
        "PARLEY_WORKSPACE_ROOT": str(tmp_path / "workspaces"),
        "ANTHROPIC_BASE_URL": fake_api.url,
        "ANTHROPIC_API_KEY": "x",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
    }
    headers = {"Authorization": f"Bearer {token_for('ann')}"}

    async def runs() -> list[tuple[int, str, str | None]]:
        async with db.connection() as conn:
            rows = await conn.fetch(
                "SELECT id, status, error FROM agent_runs WHERE user_id = 'ann' ORDER BY id"
            )
        return [(r["id"], r["status"], r["error"]) for r in rows]

    conversation = 0
    for step, text in enumerate(("one", "two", "three")):
        process, base = await spawn_server(migrated, **env)
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
            if not conversation:
                created = await client.post("/api/ann/conversations", json={"mode": "work"})
                conversation = created.json()["id"]
            reply = await client.post(
                "/api/ann/chat", json={"conversation_id": conversation, "message": text}
            )
            assert reply.status_code == 200, reply.text
            listed = (await client.get("/api/ann/runs")).json()
            assert [(r["id"], r["status"]) for r in listed] == [(listed[0]["id"], "running")]
            if step < 2:
                process.send_signal(signal.SIGTERM)
                async with asyncio.timeout(40):
                    await process.wait()
                [(run_id, status, _)] = await runs()
                assert status == "cancelled"  # until the session starts again
    [(run_id, status, error)] = await runs()
    assert (status, error) == ("running", None)

    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
        ended = await client.post(f"/api/ann/conversations/{conversation}/work/end", json={})
        assert ended.status_code == 200, ended.text
        assert await runs() == [(run_id, "completed", None)]
        # After the person's End, the next prompt is a new session: a new run.
        reply = await client.post(
            "/api/ann/chat", json={"conversation_id": conversation, "message": "four"}
        )
        assert reply.status_code == 200, reply.text
        after = await runs()
        assert after[0] == (run_id, "completed", None)
        assert [status for _, status, _ in after[1:]] == ["running"]
    process.send_signal(signal.SIGTERM)
    async with asyncio.timeout(40):
        await process.wait()
