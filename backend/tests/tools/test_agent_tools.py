"""The agent tools over `/mcp` (the official client, streamable HTTP) and `parley mcp`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parley.db import Database
from tests.conftest import Server, snapshot, token_for
from tests.runs.helpers import Actor
from tests.tools.results import data, text
from tests.tools.test_mcp_http import mcp_client
from tests.tools.test_mcp_stdio import stdio_client

AGENT_TOOLS = {
    "post_message",
    "read_messages",
    "start_run",
    "report_status",
    "finish_run",
    "ask_user",
    "wait_for_answer",
}


async def test_ask_user_blocks_until_the_person_answers(server: Server) -> None:
    person = Actor(server, "alice")
    async with mcp_client(server.base_url, token_for("alice", agent="planner")) as client:
        assert {t.name for t in (await client.list_tools()).tools} >= AGENT_TOOLS
        run = data(await client.call_tool("start_run", {"title": "Plan"}))
        asking = asyncio.create_task(
            client.call_tool("ask_user", {"question": "Now or later?", "run_id": run["id"]})
        )
        messages: list[dict[str, object]] = []
        while not any(m["kind"] == "question" for m in messages):
            await asyncio.sleep(0.05)
            messages = await person.ok("GET", f"/runs/{run['id']}/messages")
        assert (await person.ok("GET", f"/runs/{run['id']}"))["status"] == "waiting_input"
        await person.post(f"/runs/{run['id']}/messages", "Now")
        answer = data(await asyncio.wait_for(asking, 5))
        assert answer["status"] == "answered" and answer["answer"] == "Now"
        assert answer["answered_by"] == "alice"
        assert (await person.ok("GET", f"/runs/{run['id']}"))["status"] == "running"

        read = data(await client.call_tool("read_messages", {"run_id": run["id"]}))
        assert [m["kind"] for m in read["messages"]] == ["question", "answer"]
        data(
            await client.call_tool(
                "report_status", {"run_id": run["id"], "text": "go", "progress": 80}
            )
        )
        done = data(await client.call_tool("finish_run", {"run_id": run["id"], "summary": "ok"}))
        assert done["status"] == "completed"
        refused = await client.call_tool("post_message", {"text": "late", "run_id": run["id"]})
        assert refused.is_error and "ended" in text(refused)


async def test_a_long_wait_returns_waiting_then_wait_for_answer_resumes(
    make_server,  # type: ignore[no-untyped-def]
) -> None:
    async with (
        make_server(PARLEY_TOOL_WAIT_MAX=0.5) as server,
        mcp_client(server.base_url, token_for("alice", agent="planner")) as client,
    ):
        first = data(await client.call_tool("ask_user", {"question": "Which one?"}))
        assert first["status"] == "waiting"
        again = data(
            await client.call_tool("wait_for_answer", {"question_id": first["question_id"]})
        )
        assert again["status"] == "waiting"
        inbox = (await Actor(server, "alice").ok("GET", "/inbox"))["id"]
        await Actor(server, "alice").post(f"/conversations/{inbox}/messages", "The red one")
        got = data(await client.call_tool("wait_for_answer", {"question_id": first["question_id"]}))
        assert got == {
            "question_id": first["question_id"],
            "status": "answered",
            "answer": "The red one",
            "answered_by": "alice",
        }
        expired = data(await client.call_tool("ask_user", {"question": "Quick?", "timeout_s": 0.2}))
        assert expired["status"] == "timed_out"


async def test_tools_never_reach_another_users_things(server: Server, db: Database) -> None:
    async with mcp_client(server.base_url, token_for("alice", agent="planner")) as alice:
        run = data(await alice.call_tool("start_run", {}))
        question = data(await alice.call_tool("post_message", {"text": "hi"}))
    before = await snapshot(db)
    async with mcp_client(server.base_url, token_for("mallory", agent="planner")) as mallory:
        for tool, args in (
            ("post_message", {"text": "x", "run_id": run["id"]}),
            ("read_messages", {"run_id": run["id"]}),
            ("report_status", {"run_id": run["id"], "text": "x"}),
            ("finish_run", {"run_id": run["id"]}),
            ("wait_for_answer", {"question_id": question["id"], "wait_s": 0}),
        ):
            result = await mallory.call_tool(tool, args)
            assert result.is_error and "not found" in text(result), (tool, text(result))
    async with mcp_client(server.base_url, token_for("alice")) as person:
        refused = await person.call_tool("ask_user", {"question": "Me?"})
        assert refused.is_error and "agent's token" in text(refused)
        refused = await person.call_tool("post_message", {"text": " "})
        assert refused.is_error
    assert await snapshot(db) == before


async def test_parley_mcp_writes_as_its_agent(
    server: Server, migrated: str, tmp_path: Path
) -> None:
    async with stdio_client(migrated, tmp_path, "--user", "alice", "--agent", "desk") as client:
        posted = data(await client.call_tool("post_message", {"text": "from the desktop"}))
        assert (posted["role"], posted["author"]) == ("agent", "desk")
    token = token_for("alice", agent="cli")
    async with stdio_client(migrated, tmp_path, PARLEY_TOKEN=token) as client:
        posted = data(await client.call_tool("post_message", {"text": "from the token"}))
        assert (posted["role"], posted["author"]) == ("agent", "cli")
    inbox = (await Actor(server, "alice").ok("GET", "/inbox"))["id"]
    stored = await Actor(server, "alice").ok("GET", f"/conversations/{inbox}/messages")
    assert [(m["author"], m["content"]) for m in stored] == [
        ("desk", "from the desktop"),
        ("cli", "from the token"),
    ]
