"""A session lives on one instance; a message sent through another one reaches it."""

from __future__ import annotations

from typing import Any

import pytest

from parley.db import Database
from tests.conftest import eventually
from tests.work.conftest import (
    is_result,
    messages,
    needs_cli,
    new_work,
    send,
    wait_for_message,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


async def pids(db: Database) -> list[int]:
    async with db.connection() as conn:
        return [r["pid"] for r in await conn.fetch("SELECT pid FROM agent_runs ORDER BY id")]


async def test_messages_through_another_instance_reach_the_live_process(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(
        say("Hello from A"),
        bash("echo via-b"),
        say("Answered through B"),
        say("Sent without waiting"),
    )
    unasked = {"PARLEY_WORK_PERMISSION_MODE": "none"}
    async with work_server(**unasked) as a, work_server(**unasked) as b:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "the code word is fig", conversation)).status_code == 200
        (pid,) = await pids(db)
        reply = await b.chat("ann", "what is the code word?", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "Answered through B"
        # B followed the prompt A ran: its reply lists the tool A's process ran too.
        assert reply.json()["tool_calls"] == [
            {
                "tool": "Bash",
                "parameters": {"command": "echo via-b", "description": "echo via-b"},
                "result": "via-b",
            }
        ]
        assert "the code word is fig" in fake_api.texts_sent(-1)  # the same live process
        assert await pids(db) == [pid]  # no second process, no second run
        assert (await send(b, "ann", conversation, "and one more")).status_code == 201

        async def three_results() -> bool:
            found = await messages(a, "ann", conversation)
            return len([m for m in found if is_result(m)]) == 3

        await eventually(three_results, within=30)
        ended = await b.client.post(
            f"/api/ann/conversations/{conversation}/work/end", headers=b.headers("ann")
        )
        assert ended.json() == {"ended": True}

        async def completed() -> bool:
            async with db.connection() as conn:
                return await conn.fetchval("SELECT status FROM agent_runs") == "completed"

        await eventually(completed, within=15)


async def test_a_permission_answered_through_another_instance_reaches_the_waiting_call(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(bash("echo via-b"), say("Ran it"))
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        await send(a, "ann", conversation, "run it")
        question = await wait_for_message(a, "ann", conversation, lambda m: m["kind"] == "question")
        answer = await send(b, "ann", conversation, "allow", reply_to=question["id"])
        assert answer.status_code == 201
        await wait_for_message(
            a, "ann", conversation, lambda m: m["id"] > answer.json()["id"] and is_result(m)
        )
        found = await messages(a, "ann", conversation)
        assert "via-b" in [m["content"] for m in found]
        assert (await work_state(a, "ann", conversation))["pending_question_id"] is None


async def test_each_instance_hears_notes_on_its_one_connection_across_a_reconnect(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    """Work notes ride the instance's realtime connection: no second LISTEN connection, and
    after that connection is cut and comes back, a prompt sent through the other instance
    still reaches the live process."""

    async def own_connections() -> list[str]:
        async with db.connection() as conn:
            rows = await conn.fetch(
                "SELECT application_name FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE 'parley-%'"
            )
        return sorted(r["application_name"] for r in rows)

    async def listening(count: int) -> bool:
        return await own_connections() == ["parley-listen"] * count

    fake_api.script(say("Hello from A"), say("Still here"))
    async with work_server() as a, work_server() as b:
        await eventually(lambda: listening(2))
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "the code word is fig", conversation)).status_code == 200
        (pid,) = await pids(db)
        async with db.connection() as conn:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = 'parley-listen'"
            )
        await eventually(lambda: listening(2), within=30)
        reply = await b.chat("ann", "what is the code word?", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "Still here"
        assert "the code word is fig" in fake_api.texts_sent(-1)
        assert await pids(db) == [pid]
