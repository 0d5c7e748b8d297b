"""A person's answer as an MCP task (extension `io.modelcontextprotocol/tasks`), over the raw
2026-07-28 wire, against two `parley serve` processes sharing one database: the task is the
question's row, so either instance serves it, and a kill -9 of the one that created it
changes nothing. A call sent twice with the same client call id runs once."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import httpx
import pytest

from parley.db import Database
from tests.conftest import eventually, spawn_server, token_for
from tests.tools.mcp_wire import MODERN, Wire
from tests.tools.test_mcp_http import mcp_client

pytestmark = pytest.mark.timeout(240)

USER, AGENT = "alice", "helper"


def person() -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(USER)}"}


async def question_rows(db: Database) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT q.message_id, q.status, m.content FROM questions q"
            " JOIN messages m ON m.id = q.message_id ORDER BY q.message_id"
        )
    return [dict(r) for r in rows]


async def has_questions(db: Database) -> bool:
    return bool(await question_rows(db))


async def count_messages(db: Database, kind: str) -> int:
    async with db.connection() as conn:
        return int(await conn.fetchval("SELECT count(*) FROM messages WHERE kind = $1", kind))


async def two_instances(migrated: str) -> tuple[asyncio.subprocess.Process, str, str]:
    (first, a), (_second, b) = await asyncio.gather(
        spawn_server(migrated, PARLEY_MCP_TASK_POLL_MS="100"),
        spawn_server(migrated, PARLEY_MCP_TASK_POLL_MS="100"),
    )
    return first, a, b


async def test_ask_user_is_a_task_any_instance_serves_after_a_kill_9(migrated, db) -> None:
    first, a, b = await two_instances(migrated)
    on_a, on_b = Wire(a, USER, AGENT), Wire(b, USER, AGENT)

    created = await on_a.call("ask_user", {"question": "Which colour?"}, call_id="toolu_one")
    assert created["resultType"] == "task", created  # at once: nobody has answered
    assert created["status"] == "working"
    task_id = created["taskId"]
    [asked] = await question_rows(db)  # durably created before the reply
    assert asked["status"] == "open" and asked["content"] == "Which colour?"

    polled = (await on_a.task("tasks/get", task_id))["result"]
    assert polled["status"] == "working"
    assert polled["statusMessage"] == f"waiting for {USER}"

    os.killpg(first.pid, signal.SIGKILL)  # the instance that made the task dies
    await first.wait()

    async with httpx.AsyncClient(base_url=b, headers=person(), timeout=30) as rest:
        answered = await rest.post(
            f"/api/{USER}/questions/{asked['message_id']}/answer", json={"text": "Blue"}
        )
    assert answered.status_code == 201, answered.text

    done = (await on_b.task("tasks/get", task_id))["result"]
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"]["answer"] == "Blue"
    assert done["result"]["structuredContent"]["answered_by"] == USER
    assert not done["result"].get("isError")

    # The client's stream broke and it sends the same call again: the same task, nothing new.
    again = await on_b.call("ask_user", {"question": "Which colour?"}, call_id="toolu_one")
    assert again["taskId"] == task_id
    assert len(await question_rows(db)) == 1
    assert await count_messages(db, "question") == 1


async def test_tasks_cancel_withdraws_the_question_for_the_person(migrated, db) -> None:
    _first, a, b = await two_instances(migrated)
    created = await Wire(a, USER, AGENT).call("ask_user", {"question": "Deploy now?"})
    task_id = created["taskId"]
    [asked] = await question_rows(db)

    acked = await Wire(b, USER, AGENT).task("tasks/cancel", task_id)
    assert acked["result"]["resultType"] == "complete", acked

    async with httpx.AsyncClient(base_url=a, headers=person(), timeout=30) as rest:
        seen = (await rest.get(f"/api/{USER}/questions/{asked['message_id']}")).json()
        still_open = (await rest.get(f"/api/{USER}/questions")).json()
        late = await rest.post(
            f"/api/{USER}/questions/{asked['message_id']}/answer", json={"text": "yes"}
        )
    assert seen["status"] == "closed"
    assert still_open == []
    assert late.status_code == 409 and late.json()["error"]["code"] == "question_closed"
    polled = (await Wire(a, USER, AGENT).task("tasks/get", task_id))["result"]
    assert polled["status"] == "cancelled"


async def test_a_task_id_is_useless_to_anyone_else(migrated, db) -> None:
    _first, a, _b = await two_instances(migrated)
    created = await Wire(a, USER, AGENT).call("ask_user", {"question": "Secret?"})
    task_id = created["taskId"]
    for intruder in (Wire(a, "mallory", AGENT), Wire(a, USER, "other-agent")):
        refused = await intruder.task("tasks/get", task_id)
        assert refused["error"]["message"] == "Task not found", refused
        refused = await intruder.task("tasks/cancel", task_id)
        assert "error" in refused
    forged = task_id.replace("q", "q9", 1)
    assert "error" in await Wire(a, USER, AGENT).task("tasks/get", forged)
    [asked] = await question_rows(db)
    assert asked["status"] == "open"  # nothing an intruder sent changed it


async def test_without_the_extension_the_wait_is_in_band_as_before(migrated, db) -> None:
    _first, a, b = await two_instances(migrated)
    plain = Wire(a, USER, AGENT, tasks=False)
    asking = asyncio.create_task(plain.call("ask_user", {"question": "Tea or coffee?"}))

    async def answer_when_asked() -> None:
        await eventually(lambda: has_questions(db), within=30)
        [asked] = await question_rows(db)
        async with httpx.AsyncClient(base_url=b, headers=person(), timeout=30) as rest:
            response = await rest.post(
                f"/api/{USER}/questions/{asked['message_id']}/answer", json={"text": "Tea"}
            )
        assert response.status_code == 201, response.text

    await asyncio.wait_for(answer_when_asked(), 30)
    result = await asyncio.wait_for(asking, 60)
    assert result.get("resultType") != "task"
    assert result["structuredContent"]["status"] == "answered"
    assert result["structuredContent"]["answer"] == "Tea"


async def test_the_same_call_sent_at_once_to_both_instances_posts_once(migrated, db) -> None:
    _first, a, b = await two_instances(migrated)
    copies = [
        Wire(base, USER, AGENT, tasks=False).call(
            "post_message", {"text": "Build is green"}, call_id="toolu_race"
        )
        for base in (a, b, a, b, a, b)
    ]
    results = await asyncio.gather(*copies)
    ids = {r["structuredContent"]["id"] for r in results}
    assert len(ids) == 1, results
    assert await count_messages(db, "message") == 1
    keyed = Wire(a, USER, AGENT, tasks=False)
    first = await keyed.call("add_task", {"title": "Buy milk", "idempotency_key": "k-1"})
    second = await keyed.call("add_task", {"title": "Buy milk", "idempotency_key": "k-1"})
    assert first["structuredContent"] == second["structuredContent"]
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM tasks") == 1


async def test_2025_and_2026_clients_side_by_side_on_either_instance(migrated, db) -> None:
    """The official client in the 2025 handshake era and in the 2026-07-28 era, each on a
    different instance, on the same person's data; neither is offered a task."""
    _first, a, b = await two_instances(migrated)
    seen: list[str] = []
    for base, mode in ((a, "legacy"), (b, MODERN), (b, "legacy"), (a, MODERN)):
        async with mcp_client(base, token_for(USER, agent=AGENT), mode=mode) as client:
            seen.append(client.protocol_version)
            added = await client.call_tool("add_task", {"title": f"from {mode} on {base[-5:]}"})
            assert not added.is_error, added
            asked = await client.call_tool("ask_user", {"question": f"{mode}?", "timeout_s": 1})
            assert asked.structured_content is not None
            assert asked.structured_content["status"] == "timed_out"  # in-band, no task
    assert seen[1] == seen[3] == MODERN and seen[0] != MODERN and seen[2] != MODERN
    async with db.connection() as conn:
        assert await conn.fetchval("SELECT count(*) FROM tasks WHERE user_id = $1", USER) == 4


async def test_delegate_task_is_a_task_until_the_child_finishes(migrated, db) -> None:
    _first, a, b = await two_instances(migrated)
    parent, child = Wire(a, USER, "planner"), Wire(b, USER, "coder", tasks=False)
    run = (await parent.call("start_run", {"title": "release"}))["structuredContent"]
    created = await parent.call(
        "delegate_task", {"run_id": run["id"], "agent": "coder", "task": "Fix the build"}
    )
    assert created["resultType"] == "task" and created["status"] == "working", created
    assert created["statusMessage"] == "waiting for a coder to pick it up"
    picked = (await child.call("next_delegation", {"wait_s": 5}))["structuredContent"]
    thread_id = picked["delegation"]["thread_id"]
    working = (await Wire(b, USER, "planner").task("tasks/get", created["taskId"]))["result"]
    assert working["status"] == "working" and working["statusMessage"] == "waiting for coder"
    await child.call("complete", {"thread_id": thread_id, "text": "Build fixed"})
    done = (await Wire(b, USER, "planner").task("tasks/get", created["taskId"]))["result"]
    assert done["status"] == "completed", done
    assert done["result"]["structuredContent"]["status"] == "completed"
    assert done["result"]["structuredContent"]["result"] == "Build fixed"
