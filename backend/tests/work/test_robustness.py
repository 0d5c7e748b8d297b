"""What must not end a session, and what must end promptly: NUL bytes and huge replies from
the CLI, End while a command runs, and the per-person limit under concurrent first prompts."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psutil
import pytest

from parley.db import Database
from parley.work.transport import NUL_SHOWN_AS
from tests.conftest import eventually
from tests.work.conftest import (
    claude_processes,
    is_result,
    messages,
    needs_cli,
    new_work,
    of_type,
    send,
    wait_for_message,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _runs(db: Database) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        return [dict(r) for r in await conn.fetch("SELECT * FROM agent_runs ORDER BY id")]


async def test_a_nul_byte_in_a_commands_output_is_stored_visibly_and_the_session_goes_on(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("printf 'before\\000after'"), say("Printed"), say("Still here"))
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        conversation = await new_work(server, "ann")
        first = await server.chat("ann", "print it", conversation)
        assert first.status_code == 200, first.text
        found = await messages(server, "ann", conversation)
        (output,) = [m["content"] for m in found if of_type(m) == "tool_result"]
        assert f"before{NUL_SHOWN_AS}after" in output
        second = await server.chat("ann", "still there?", conversation)
        assert second.status_code == 200, second.text
        assert second.json()["response"] == "Still here"
        assert [r["status"] for r in await _runs(db)] == ["running"]  # the same session


async def test_a_reply_over_a_mebibyte_does_not_end_the_session(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    huge = "word " * 300_000  # 1.5 MB of text in one assistant message
    fake_api.script(say(huge, chunks=20), say("Small again"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        first = await server.chat("ann", "write a lot", conversation)
        assert first.status_code == 200, first.text
        assert first.json()["response"] == huge
        second = await server.chat("ann", "and now?", conversation)
        assert second.json()["response"] == "Small again"
        assert [r["status"] for r in await _runs(db)] == ["running"]


async def test_end_returns_promptly_while_a_command_runs(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("tail -f /dev/null"))
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        conversation = await new_work(server, "ann")
        assert (await send(server, "ann", conversation, "wait a while")).status_code == 201
        await wait_for_message(server, "ann", conversation, lambda m: of_type(m) == "tool_use")
        (run,) = await _runs(db)

        async def sleeping() -> bool:  # claude and its sleep
            return len(claude_processes(run["pid"])) >= 2

        await eventually(sleeping, within=15)
        pids = claude_processes(run["pid"])
        started = time.monotonic()
        ended = await server.client.post(
            f"/api/ann/conversations/{conversation}/work/end", headers=server.headers("ann")
        )
        assert ended.json() == {"ended": True}
        assert time.monotonic() - started < 5
        # Recorded before End answers; the tree, sent SIGKILL, goes right after.
        (run,) = await _runs(db)
        assert run["status"] == "completed"
        assert (await work_state(server, "ann", conversation))["status"] == "ended"

        async def gone() -> bool:
            return not [pid for pid in pids if alive(pid)]

        await eventually(gone, within=15)


async def test_the_session_limit_holds_for_concurrent_first_prompts_on_two_instances(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = say("Started")
    async with (
        work_server(PARLEY_WORK_MAX_SESSIONS=3) as a,
        work_server(PARLEY_WORK_MAX_SESSIONS=3) as b,
    ):
        conversations = [await new_work(a, "ann") for _ in range(8)]
        sent = await asyncio.gather(
            *(
                send(a if i % 2 else b, "ann", conversation, "go")
                for i, conversation in enumerate(conversations)
            )
        )
        codes = sorted(r.status_code for r in sent)
        assert codes == [201] * 3 + [429] * 5, [r.text for r in sent]
        started = [c for c, r in zip(conversations, sent, strict=True) if r.status_code == 201]
        for conversation in started:
            await wait_for_message(a, "ann", conversation, is_result)
        runs = await _runs(db)
        assert sorted(r["conversation_id"] for r in runs) == sorted(started)
        assert [r["status"] for r in runs] == ["running"] * 3

        async def all_idle() -> bool:
            states = [await work_state(a, "ann", c) for c in started]
            return all(s["status"] == "idle" for s in states)

        await eventually(all_idle, within=20)
