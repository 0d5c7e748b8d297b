"""Permission requests: answered in-band, by a plain reply, or long after, across a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from parley.db import Database
from tests.conftest import eventually, snapshot, token_for
from tests.tools.results import text
from tests.tools.test_mcp_http import mcp_client
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

# How long a prompt may take to reach its result: Claude Code's Bash tool alone took a minute
# on a loaded two-core machine. A bound, not a sleep: a fast run returns at once.
RESULT_WITHIN = 150.0
pytestmark = pytest.mark.timeout(400)  # a test waits for up to three such results


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
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )

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
        await wait_for_message(
            server, "ann", conversation, result_after(answer.json()["id"]), within=RESULT_WITHIN
        )
        assert (workspace / "count.txt").read_text() == "ran\n"
        found = await messages(server, "ann", conversation)
        outputs = [m["content"] for m in found if m["id"] > answer.json()["id"]]
        assert any(o.endswith("counted") for o in outputs) and "Counted it" in outputs
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
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        reply = await send(server, "ann", conversation, "yes, allow always")
        assert reply.json()["reply_to"] == question["id"]
        await wait_for_message(
            server, "ann", conversation, result_after(reply.json()["id"]), within=RESULT_WITHIN
        )
        second = await send(server, "ann", conversation, "run two")
        assert second.status_code == 201, second.text
        await wait_for_message(
            server, "ann", conversation, lambda m: m["content"] == "Second, unasked", RESULT_WITHIN
        )
        found = await messages(server, "ann", conversation)
        assert len([m for m in found if is_question(m)]) == 1
        results = [m["content"] for m in found if (m["meta"] or {}).get("type") == "tool_result"]
        # Each command's own output ends its result (a shell may print a warning first).
        assert [r.splitlines()[-1] for r in results] == ["one", "two"]


async def answer(server: Any, user: str, question_id: int, **body: Any) -> Any:
    return await server.client.post(
        f"/api/{user}/questions/{question_id}/answer", json=body, headers=server.headers(user)
    )


async def question_row(db: Database, question_id: int) -> Any:
    async with db.connection() as conn:
        return await conn.fetchrow(
            "SELECT q.status, r.status AS run_status FROM questions q"
            " LEFT JOIN agent_runs r ON r.id = q.run_id WHERE q.message_id = $1",
            question_id,
        )


async def parked_on(server: Any, user: str, conversation: int, question_id: int) -> None:
    async def parked() -> bool:
        state = await work_state(server, user, conversation)
        return bool(state["pending_question_id"] == question_id)

    await eventually(parked, within=RESULT_WITHIN)


@pytest.mark.slow
@needs_cli
async def test_an_agents_token_cannot_answer_over_mcp_and_the_person_can(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=30) as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "count once")
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        workspace = server.settings.workspaces / "ann"
        before = await snapshot(db)
        agent = token_for("ann", agent="helper")
        async with mcp_client(server.base_url, agent) as client:
            for tool, args in (
                ("send_to_work_session", {"conversation_id": conversation, "text": "allow"}),
                ("start_work_session", {"prompt": "write secrets.txt"}),
                ("end_work_session", {"conversation_id": conversation}),
            ):
                refused = await client.call_tool(tool, args)
                assert refused.is_error and "agent" in text(refused).lower(), text(refused)
        # REST refuses an agent too, by the answer route and by a reply.
        by_route = await server.client.post(
            f"/api/ann/questions/{question['id']}/answer",
            json={"decision": "allow"},
            headers=server.headers("ann", agent="helper"),
        )
        assert by_route.status_code == 403
        assert await snapshot(db) == before  # nothing stored, nothing approved
        assert not (workspace / "count.txt").exists()
        assert (await work_state(server, "ann", conversation))["status"] == "waiting_permission"
        allowed = await answer(server, "ann", question["id"], decision="allow")
        assert allowed.status_code == 201, allowed.text
        assert allowed.json()["content"] == "Allow"
        await wait_for_message(
            server, "ann", conversation, result_after(allowed.json()["id"]), within=RESULT_WITHIN
        )
        assert (workspace / "count.txt").read_text() == "ran\n"


@pytest.mark.slow
@needs_cli
async def test_ten_allows_on_two_instances_store_one_answer_and_run_the_call_once(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with (
        work_server(PARLEY_WORK_PERMISSION_WAIT=1) as one,
        work_server(PARLEY_WORK_PERMISSION_WAIT=1) as two,
    ):
        conversation = await new_work(one, "ann")
        await send(one, "ann", conversation, "count once")
        question = await wait_for_message(
            one, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        await parked_on(one, "ann", conversation, question["id"])
        replies = await asyncio.gather(
            *(answer((one, two)[i % 2], "ann", question["id"], decision="allow") for i in range(10))
        )
        assert sorted(r.status_code for r in replies) == [201] + [409] * 9
        winner = next(r.json() for r in replies if r.status_code == 201)
        await wait_for_message(
            one, "ann", conversation, result_after(winner["id"]), within=RESULT_WITHIN
        )
        found = await messages(one, "ann", conversation)
        assert [m["id"] for m in found if m["kind"] == "answer"] == [winner["id"]]
        assert (one.settings.workspaces / "ann" / "count.txt").read_text() == "ran\n"
        async with db.connection() as conn:
            live = await conn.fetchval(
                "SELECT count(*) FROM agent_runs WHERE status IN ('running', 'waiting_input')"
            )
        assert live <= 1


@pytest.mark.slow
@needs_cli
async def test_end_closes_the_question_and_a_later_yes_reaches_claude(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "count once")
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        await parked_on(server, "ann", conversation, question["id"])
        ended = await server.client.post(
            f"/api/ann/conversations/{conversation}/work/end", headers=server.headers("ann")
        )
        assert ended.status_code == 200, ended.text
        row = await question_row(db, question["id"])
        assert row["status"] == "closed" and row["run_status"] == "completed"
        late = await answer(server, "ann", question["id"], decision="allow")
        assert late.status_code == 409 and late.json()["error"]["code"] == "question_closed"
        # The parked call is denied as the session resumes; then the message is a prompt.
        fake_api.script(say("Left it"), say("Yes seen"))
        reply = await send(server, "ann", conversation, "yes, and tell me the date")
        assert reply.status_code == 201, reply.text
        assert reply.json()["kind"] == "message" and reply.json()["answered"] is None
        await wait_for_message(
            server, "ann", conversation, lambda m: m["content"] == "Yes seen", within=RESULT_WITHIN
        )
        sent = [fake_api.texts_sent(i) for i in range(len(fake_api.requests))]
        assert any("tell me the date" in text for text in sent)  # a prompt, not an answer
        found = await messages(server, "ann", conversation)
        assert [m["id"] for m in found if m["kind"] == "question"] == [question["id"]]
        assert not (server.settings.workspaces / "ann" / "count.txt").exists()


@pytest.mark.slow
@needs_cli
async def test_a_newer_prompt_supersedes_a_parked_question_and_ends_its_run(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt"), say("Skipped it"), say("Did the other thing"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "count once")
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        await parked_on(server, "ann", conversation, question["id"])
        prompt = await send(server, "ann", conversation, "do the other thing instead")
        assert prompt.json()["kind"] == "message"
        await wait_for_message(
            server,
            "ann",
            conversation,
            lambda m: m["id"] > prompt.json()["id"] and m["content"] == "Did the other thing",
            within=RESULT_WITHIN,
        )
        row = await question_row(db, question["id"])
        assert row["status"] == "closed"
        assert row["run_status"] not in ("running", "waiting_input")  # not waiting forever
        async with db.connection() as conn:
            waiting = await conn.fetchval(
                "SELECT count(*) FROM agent_runs WHERE status = 'waiting_input'"
            )
        assert waiting == 0
        assert not (server.settings.workspaces / "ann" / "count.txt").exists()


@pytest.mark.slow
@needs_cli
async def test_allow_right_after_a_restart_in_the_first_seconds_still_runs_the_call(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=45) as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "count once")
        question = await wait_for_message(
            server, "ann", conversation, is_question, within=RESULT_WITHIN
        )
        state = await work_state(server, "ann", conversation)
        assert state["status"] == "waiting_permission" and state["pending_question_id"] is None
        workspace = server.settings.workspaces / "ann"
    # Restarted seconds into a 45 s in-band wait: the call was parked, not lost.
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM agent_runs") == "waiting_input"
    assert (await question_row(db, question["id"]))["status"] == "open"
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=45) as server:
        allowed = await answer(server, "ann", question["id"], decision="allow")
        assert allowed.status_code == 201, allowed.text
        await wait_for_message(
            server, "ann", conversation, result_after(allowed.json()["id"]), within=RESULT_WITHIN
        )
        assert (workspace / "count.txt").read_text() == "ran\n"
        assert "counted" in fake_api.texts_sent(-1)
