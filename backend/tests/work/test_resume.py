"""A parked call answered while no instance acted on the answer (it came as its server shut
down) is resumed by the next instance that looks: under the session's lease like any start,
and only once the reaper has freed a lease a dead server still held."""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any

import pytest

from parley.auth import Caller
from parley.db import Database
from parley.questions import answer as answering
from parley.questions.words import Decision
from parley.work.ownership import OWNER_GONE, started_at
from tests.conftest import eventually
from tests.work.conftest import (
    RESULT_WITHIN,
    asked,
    is_result,
    messages,
    needs_cli,
    wait_for_message,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(400)]


async def session_row(db: Database, conversation: int) -> Any:
    async with db.connection() as conn:
        return await conn.fetchrow(
            "SELECT owner, pending, status FROM work_sessions WHERE conversation_id = $1",
            conversation,
        )


async def test_an_answer_no_instance_acted_on_resumes_once_the_reaper_frees_the_dead_lease(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        conversation, question = await asked(server, "count once")

        async def parked() -> bool:
            row = await session_row(db, conversation)
            return row["pending"] is not None and row["owner"] is None

        await eventually(parked, within=RESULT_WITHIN)
        workspace = server.settings.workspaces / "ann"
    # The answer is stored while no server acts on it, and the session's lease is still held
    # by a server that died (killed as it parked the call): nobody may resume it until the
    # reaper has freed that lease.
    answered = await answering.answer(
        db,
        caller=Caller("ann"),
        question_id=question["id"],
        text=None,
        decision=Decision.allow,
        max_chars=16000,
    )
    dead = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    dead_started = started_at(dead.pid) or 0.0
    await dead.wait()
    async with db.connection() as conn:
        await conn.execute(
            """UPDATE work_sessions SET owner = 'gone/1', host = $2, owner_pid = $3,
            owner_started = $4, lease_expires_at = now() - interval '1 second'
            WHERE conversation_id = $1""",
            conversation,
            socket.gethostname(),
            dead.pid,
            dead_started,
        )
    assert not (workspace / "count.txt").exists()
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        await wait_for_message(
            server,
            "ann",
            conversation,
            lambda m: m["id"] > answered.answer.id and is_result(m),
            within=RESULT_WITHIN,
        )
        assert (workspace / "count.txt").read_text() == "ran\n"
        found = await messages(server, "ann", conversation)
        after = [m["content"] for m in found if m["id"] > answered.answer.id]
        # The reaper ended the dead server's hold first (and said so); then the call ran.
        assert after.index(OWNER_GONE) < after.index("Counted it")
        assert "counted" in fake_api.texts_sent(-1)
        row = await session_row(db, conversation)
        assert row["pending"] is None and row["owner"] not in (None, "gone/1")
    assert (await session_row(db, conversation))["owner"] is None  # let go at shutdown
    async with db.connection() as conn:
        runs = await conn.fetch(
            "SELECT status FROM agent_runs WHERE conversation_id = $1 ORDER BY id", conversation
        )
    # One run for the session: the parked run the reaper failed was carried on by the resumed
    # session (not a second row), then ended by this server's shutdown, to reopen at the next.
    assert [r["status"] for r in runs] == ["cancelled"]
    assert "waiting_input" not in [r["status"] for r in runs]
    assert (workspace / "count.txt").read_text() == "ran\n"  # once
