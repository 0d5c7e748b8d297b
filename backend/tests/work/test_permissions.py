"""Permission requests: answered in-band, by a plain reply, or long after, across a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from parley.db import Database
from tests.conftest import snapshot, token_for
from tests.tools.results import text
from tests.tools.test_mcp_http import mcp_client
from tests.work.conftest import (
    RESULT_WITHIN,
    asked,
    is_question,
    messages,
    needs_cli,
    parked_on,
    result_of,
    send,
    wait_for_message,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = pytest.mark.timeout(400)  # a test waits for up to three results (RESULT_WITHIN)


@pytest.mark.slow
@needs_cli
async def test_a_pending_permission_survives_a_restart_and_the_tool_runs_once(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        conversation, question = await asked(server, "count once")
        await parked_on(server, "ann", conversation, question["id"])
        assert (await work_state(server, "ann", conversation))["status"] == "waiting_permission"
        workspace = server.settings.workspaces / "ann"
    # The server is gone; the question, the tool call and the session are in PostgreSQL.
    assert not (workspace / "count.txt").exists()
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM agent_runs") == "waiting_input"
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=1) as server:
        answer = await send(server, "ann", conversation, "allow", reply_to=question["id"])
        result = await result_of(server, conversation, answer)
        assert (workspace / "count.txt").read_text() == "ran\n"
        # The resumed run's reply lists the parked call, with the result it got after all.
        [call] = result["tool_calls"]
        assert call["tool"] == "Bash"
        assert call["parameters"]["command"] == "echo ran >> count.txt; echo counted"
        assert call["result"].endswith("counted")
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
        conversation, question = await asked(server, "run one")
        reply = await send(server, "ann", conversation, "yes, allow always")
        assert reply.json()["reply_to"] == question["id"]
        await result_of(server, conversation, reply)
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


@pytest.mark.slow
@needs_cli
async def test_an_agents_token_cannot_answer_over_mcp_and_the_person_can(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(bash("echo ran >> count.txt; echo counted"), say("Counted it"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=30) as server:
        conversation, question = await asked(server, "count once")
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
        assert allowed.json()["content"] == "Allow"
        await result_of(server, conversation, allowed)
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
        conversation, question = await asked(one, "count once")
        await parked_on(one, "ann", conversation, question["id"])
        replies = await asyncio.gather(
            *(answer((one, two)[i % 2], "ann", question["id"], decision="allow") for i in range(10))
        )
        assert sorted(r.status_code for r in replies) == [201] + [409] * 9
        won = next(r for r in replies if r.status_code == 201)
        winner = won.json()
        await result_of(one, conversation, won)
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
        conversation, question = await asked(server, "count once")
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
        conversation, question = await asked(server, "count once")
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
        conversation, question = await asked(server, "count once")
        state = await work_state(server, "ann", conversation)
        assert state["status"] == "waiting_permission" and state["pending_question_id"] is None
        workspace = server.settings.workspaces / "ann"
    # Restarted seconds into a 45 s in-band wait: the call was parked, not lost.
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT status FROM agent_runs") == "waiting_input"
    assert (await question_row(db, question["id"]))["status"] == "open"
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=45) as server:
        allowed = await answer(server, "ann", question["id"], decision="allow")
        await result_of(server, conversation, allowed)
        assert (workspace / "count.txt").read_text() == "ran\n"
        assert "counted" in fake_api.texts_sent(-1)
