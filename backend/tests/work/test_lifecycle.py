"""How a work session ends, fails and comes back: Stop, End, idle, crashes, limits."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any

import psutil
import pytest

from parley.db import Database
from parley.work.proctree import TAG
from parley.work.session import session_tag
from tests.conftest import Server, eventually
from tests.work.conftest import (
    claude_processes,
    messages,
    needs_cli,
    new_work,
    of_type,
    reply_under_way,
    send,
    wait_for_message,
    work_state,
)
from tests.work.fake_anthropic import Fail, FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


async def run_of(db: Database, conversation_id: int) -> dict[str, Any]:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "SELECT id, status, error, pid, instance FROM agent_runs WHERE conversation_id = $1"
            " ORDER BY id DESC LIMIT 1",
            conversation_id,
        )
    assert row is not None
    return dict(row)


def is_end(message: dict[str, Any]) -> bool:
    return of_type(message) in ("result", "error")


async def results(server: Server, user: str, conversation_id: int) -> list[dict[str, Any]]:
    return [m for m in await messages(server, user, conversation_id) if is_end(m)]


def session_processes(run: dict[str, Any]) -> list[psutil.Process]:
    """Processes started by this run's session (they carry its tag), whatever else runs."""
    tag = session_tag(run["instance"], run["id"])
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if proc.environ().get(TAG) == tag:
                found.append(proc)
    return found


def gone(pids: list[int]) -> bool:
    return not any(psutil.pid_exists(p) and psutil.Process(p).status() != "zombie" for p in pids)


async def test_stop_interrupts_a_long_reply_and_the_session_carries_on(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(say("word " * 60, chunks=60, delay=0.25), say("Still here"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "write a lot")

        async def working() -> bool:
            return (await work_state(server, "ann", conversation))["status"] == "working"

        await eventually(working, within=20)
        await reply_under_way(server, conversation)
        loop = asyncio.get_running_loop()
        started = loop.time()
        stop = await server.client.post(
            f"/api/ann/conversations/{conversation}/stop", headers=server.headers("ann")
        )
        assert stop.json() == {"stopped": True}
        await wait_for_message(server, "ann", conversation, is_end, within=10)
        assert loop.time() - started < 8  # the 15 s reply did not run to its end
        [end] = await results(server, "ann", conversation)
        # A stop the person asked for reads as one, not as a failure.
        assert (end["content"], end["error"], end["meta"]["stopped"]) == ("Stopped.", False, True)
        pid = (await run_of(db, conversation))["pid"]
        reply = await server.chat("ann", "are you there?", conversation)
        assert reply.json()["response"] == "Still here"
        assert (await run_of(db, conversation))["pid"] == pid  # the same process


async def test_end_completes_the_run_and_kills_the_whole_tree(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("tail -f /dev/null & echo started"), say("Started a sleeper"))
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        conversation = await new_work(server, "ann")
        reply = await server.chat("ann", "start a background job", conversation)
        assert reply.status_code == 200, reply.text
        run = await run_of(db, conversation)
        # The shell exited at once: the sleeper is no longer a descendant of claude.
        sleepers = [
            p.pid for p in session_processes(run) if p.cmdline() == ["tail", "-f", "/dev/null"]
        ]
        assert sleepers, [m["content"] for m in await messages(server, "ann", conversation)]
        pids = claude_processes(run["pid"]) + sleepers
        end = await server.client.post(
            f"/api/ann/conversations/{conversation}/work/end", headers=server.headers("ann")
        )
        assert end.json() == {"ended": True}
        # Recorded before End answers; the tree, sent SIGKILL, goes right after.
        assert (await run_of(db, conversation))["status"] == "completed"
        assert (await work_state(server, "ann", conversation))["status"] == "ended"

        async def all_gone() -> bool:
            return gone(pids)

        await eventually(all_gone, within=15)


async def test_deleting_the_conversation_ends_its_session(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(say("Here"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await server.chat("ann", "hello", conversation)
        pids = claude_processes((await run_of(db, conversation))["pid"])
        deleted = await server.client.delete(
            f"/api/ann/conversations/{conversation}", headers=server.headers("ann")
        )
        assert deleted.status_code == 204
        assert gone(pids)
        async with db.connection() as conn:
            assert await conn.fetchval("SELECT status FROM agent_runs") == "completed"


async def test_idle_timeout_ends_it_and_writing_again_resumes_the_session(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(say("First answer"), say("Resumed answer"))
    async with work_server(PARLEY_WORK_IDLE_TIMEOUT=1.5) as server:
        conversation = await new_work(server, "ann")
        await server.chat("ann", "the secret is kiwi", conversation)
        first_run = await run_of(db, conversation)

        async def timed_out() -> bool:
            return (await run_of(db, conversation))["status"] == "timed_out"

        await eventually(timed_out, within=15)
        assert gone([first_run["pid"]])
        assert (await work_state(server, "ann", conversation))["status"] == "ended"
        reply = await server.chat("ann", "what was the secret?", conversation)
        assert reply.json()["response"] == "Resumed answer"
        assert "the secret is kiwi" in fake_api.texts_sent(-1)  # resumed, context and all
        assert (await run_of(db, conversation))["id"] != first_run["id"]


async def test_a_session_whose_transcript_is_gone_starts_afresh_and_says_so(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    """A conversation from before sessions had homes of their own (or whose home was
    removed) names a session Claude Code cannot resume: the next prompt still gets its
    answer, from a new session, and the person is told the old context is gone."""
    fake_api.script(say("First answer"), say("Fresh answer"))
    async with work_server(PARLEY_WORK_IDLE_TIMEOUT=1.5) as server:
        conversation = await new_work(server, "ann")
        await server.chat("ann", "the secret is kiwi", conversation)

        async def timed_out() -> bool:
            return (await run_of(db, conversation))["status"] == "timed_out"

        await eventually(timed_out, within=15)
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE work_sessions SET session_id = $2 WHERE conversation_id = $1",
                conversation,
                "5d0c1c6e-0000-4000-8000-000000000000",
            )
        reply = await server.chat("ann", "what was the secret?", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "Fresh answer"
        assert "the secret is kiwi" not in fake_api.texts_sent(-1)
        notice = await wait_for_message(
            server, "ann", conversation, lambda m: "starts afresh" in m["content"]
        )
        assert "does not remember" in notice["content"] and of_type(notice) == "status"


async def test_an_api_error_is_stored_and_the_session_stays_usable(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = Fail(400, "the model is unhappy")  # every retry fails too
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        failed = await server.chat("ann", "first try", conversation)
        fake_api.script(say("Better now"))
        assert failed.status_code == 502, failed.text
        assert failed.json()["error"]["conversation_id"] == conversation
        assert "the model is unhappy" in failed.json()["error"]["message"]
        found = await messages(server, "ann", conversation)
        # The error shows once: the failed result that follows it does not repeat it.
        assert [m["content"] for m in found if m["error"]] == [
            "API Error: 400 the model is unhappy"
        ]
        closing = found[-1]
        assert closing["meta"]["type"] == "result" and closing["meta"]["failed"] is True
        assert "the model is unhappy" not in closing["content"]
        pid = (await run_of(db, conversation))["pid"]
        again = await server.chat("ann", "second try", conversation)
        assert again.json()["response"] == "Better now"
        assert (await run_of(db, conversation))["pid"] == pid


async def test_a_killed_process_fails_the_run_with_a_message(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(say("Alive"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await server.chat("ann", "hello", conversation)
        os.kill((await run_of(db, conversation))["pid"], signal.SIGKILL)

        async def failed() -> bool:
            return (await run_of(db, conversation))["status"] == "failed"

        await eventually(failed, within=15)
        run = await run_of(db, conversation)
        assert "exited unexpectedly" in run["error"]
        error = await wait_for_message(server, "ann", conversation, lambda m: m["error"])
        assert "exited unexpectedly" in error["content"]


@pytest.mark.parametrize("cli", ["/nonexistent/claude", "/bin/false"])
async def test_a_missing_or_failing_cli_is_a_clear_error_not_a_hang(
    work_server: Any, db: Database, cli: str
) -> None:
    async with work_server(PARLEY_CLAUDE_PATH=cli) as server:
        conversation = await new_work(server, "ann")
        async with asyncio.timeout(40):
            reply = await server.chat("ann", "hello", conversation)
        assert reply.status_code == 502, reply.text
        # The failure is on record before the client hears of it.
        run = await run_of(db, conversation)
        assert run["status"] == "failed" and run["error"]
        error = (await messages(server, "ann", conversation))[-1]
        assert error["error"] and "Claude Code" in error["content"]
        health = (await server.client.get("/api/health")).json()
        if cli.startswith("/nonexistent"):
            assert health["work"] == {"available": False, "reason": error["content"]}


async def test_the_per_person_limit_holds(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(say("One"), say("Bob's"))
    async with work_server(PARLEY_WORK_MAX_SESSIONS=1) as server:
        first = await new_work(server, "ann")
        assert (await server.chat("ann", "hello", first)).status_code == 200
        second = await new_work(server, "ann")
        refused = await server.chat("ann", "another", second)
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "too_many_work_sessions"
        assert await messages(server, "ann", second) == []  # nothing stored
        other = await new_work(server, "bob")  # another person has their own allowance
        assert (await server.chat("bob", "hi", other)).status_code == 200


async def test_work_mode_is_off_unless_enabled(work_server: Any) -> None:
    async with work_server(PARLEY_WORK_ENABLED=False) as server:
        conversation = await new_work(server, "ann")
        refused = await server.chat("ann", "hello", conversation)
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "work_unavailable"
        assert "PARLEY_WORK_ENABLED" in refused.json()["error"]["message"]
        assert await messages(server, "ann", conversation) == []
        health = (await server.client.get("/api/health")).json()
        assert health["work"]["available"] is False
