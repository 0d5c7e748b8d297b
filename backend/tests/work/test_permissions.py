"""Permission requests: answered in-band, by a plain reply, or long after, across a restart."""

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


def is_question(message: dict[str, Any]) -> bool:
    return message["kind"] == "question"


def result_after(message_id: int) -> Any:
    return lambda m: m["id"] > message_id and is_result(m)


@pytest.mark.slow
@needs_cli
async def test_a_pending_permission_survives_a_restart_and_the_tool_runs_once(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "count once")
        question = await wait_for_message(server, "ann", conversation, is_question)

        async def parked() -> bool:
            state = await work_state(server, "ann", conversation)
            return state["pending_question_id"] == question["id"]

        await eventually(parked, within=20)
        assert (await work_state(server, "ann", conversation))["status"] == "waiting_permission"
        workspace = server.settings.workspaces / "ann"
    # The server is gone; the question, the tool call and the session are in PostgreSQL.
    assert not (workspace / "count.txt").exists()
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM agent_runs") == "waiting_input"
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        answer = await send(server, "ann", conversation, "allow", reply_to=question["id"])
        assert answer.status_code == 201, answer.text
        await wait_for_message(server, "ann", conversation, result_after(answer.json()["id"]))
        assert (workspace / "count.txt").read_text() == "ran\n"
        found = await messages(server, "ann", conversation)
        outputs = [m["content"] for m in found if m["id"] > answer.json()["id"]]
        assert "counted" in outputs and "Counted it" in outputs
        # The API saw the tool's real result, in the same Claude Code session.
        assert "counted" in fake_api.texts_sent(-1)
        again = await send(server, "ann", conversation, "allow", reply_to=question["id"])
        # Answered once, applied once.
        assert again.status_code == 409 and again.json()["error"]["code"] == "already_answered"


@pytest.mark.slow
@needs_cli
async def test_a_plain_reply_answers_the_open_question_and_allow_always_sticks(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(bash("echo one"), say("First"), bash("echo two"), say("Second, unasked"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "run one")
        question = await wait_for_message(server, "ann", conversation, is_question)
        reply = await send(server, "ann", conversation, "yes, allow always")
        assert reply.json()["reply_to"] == question["id"]
        await wait_for_message(server, "ann", conversation, result_after(reply.json()["id"]))
        second = await server.chat("ann", "run two", conversation)
        assert second.json()["response"] == "Second, unasked"
        found = await messages(server, "ann", conversation)
        assert len([m for m in found if is_question(m)]) == 1
        assert [m["content"] for m in found if (m["meta"] or {}).get("type") == "tool_result"] == [
            "one",
            "two",
        ]
