"""An agent acts for its person but never as them, and never answers itself. An agent that
delegates a task to itself is both the thread's parent and its child: the question it asks
as the child (`ask_parent`) was answered by the same agent as the parent (`answer_child`),
an answer nobody gave. Driven through the real MCP tools; such a question is the person's."""

from __future__ import annotations

import asyncio
from typing import Any

from parley.db import Database
from tests.conftest import Server, eventually, token_for
from tests.runs.helpers import Actor
from tests.tools.results import data, text
from tests.tools.test_mcp_http import mcp_client


async def _question(db: Database) -> dict[str, Any] | None:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "SELECT q.message_id, q.status, q.asked_by, a.author AS answered_by"
            " FROM questions q LEFT JOIN messages a ON a.id = q.answer_id"
        )
    return dict(row) if row is not None else None


async def test_an_agent_that_delegated_to_itself_cannot_answer_its_own_question(
    server: Server, db: Database
) -> None:
    token = token_for("alice", agent="coder")
    async with (
        mcp_client(server.base_url, token) as parent,
        mcp_client(server.base_url, token) as child,
    ):
        run = data(await parent.call_tool("start_run", {"title": "Release"}))
        made = data(
            await parent.call_tool(
                "delegate_task", {"run_id": run["id"], "agent": "coder", "task": "Ship it?"}
            )
        )
        thread = made["thread_id"]
        claimed = data(await child.call_tool("next_delegation", {"wait_s": 0}))["delegation"]
        assert claimed["thread_id"] == thread and claimed["parent_agent"] == "coder"

        asking = asyncio.create_task(
            child.call_tool("ask_parent", {"thread_id": thread, "question": "Deploy to prod?"})
        )

        async def asked() -> bool:
            return await _question(db) is not None

        await eventually(asked)
        question = await _question(db)
        assert question is not None and question["asked_by"] == "coder"
        question_id = question["message_id"]
        # As the parent, through every way an agent answers: refused, or not an answer.
        refused = await parent.call_tool(
            "answer_child", {"thread_id": thread, "question_id": question_id, "text": "yes"}
        )
        assert refused.is_error and "asked itself" in text(refused), text(refused)
        plain = data(
            await parent.call_tool(
                "post_message",
                {"run_id": made["child_run_id"], "text": "yes", "reply_to": question_id},
            )
        )
        assert plain["kind"] == "message"  # a reply, but not the answer
        coder = Actor(server, "alice", "coder")
        rest = await coder.call(
            "POST",
            f"/conversations/{thread}/messages",
            json={"text": "yes", "kind": "answer", "reply_to": question_id},
        )
        assert rest.status_code == 403, rest.text
        rest_plain = await coder.post(
            f"/conversations/{thread}/messages", "yes", reply_to=question_id
        )
        assert rest_plain["kind"] == "message"
        assert (await _question(db)) == {**question, "status": "open"}
        assert not asking.done()

        # The person answers it: the child hears the person, not itself.
        person = Actor(server, "alice")
        await person.ok("POST", f"/questions/{question_id}/answer", 201, json={"text": "not yet"})
        answered = data(await asyncio.wait_for(asking, 30))
        assert answered["status"] == "answered" and answered["answer"] == "not yet"
        assert answered["answered_by"] == "alice"
        assert (await _question(db))["answered_by"] == "alice"  # type: ignore[index]


async def test_a_parent_still_answers_its_child(server: Server, db: Database) -> None:
    """Between two agents nothing changes: the parent answers its child's question."""
    async with (
        mcp_client(server.base_url, token_for("alice", agent="architect")) as parent,
        mcp_client(server.base_url, token_for("alice", agent="coder")) as child,
    ):
        run = data(await parent.call_tool("start_run", {"title": "Auth"}))
        made = data(
            await parent.call_tool(
                "delegate_task", {"run_id": run["id"], "agent": "coder", "task": "OAuth2"}
            )
        )
        thread = made["thread_id"]
        data(await child.call_tool("next_delegation", {"wait_s": 0}))
        asking = asyncio.create_task(
            child.call_tool("ask_parent", {"thread_id": thread, "question": "authlib?"})
        )

        async def asked() -> bool:
            return await _question(db) is not None

        await eventually(asked)
        question = await _question(db)
        assert question is not None
        data(
            await parent.call_tool(
                "answer_child",
                {"thread_id": thread, "question_id": question["message_id"], "text": "authlib"},
            )
        )
        answered = data(await asyncio.wait_for(asking, 30))
        assert answered["answer"] == "authlib" and answered["answered_by"] == "architect"


async def test_an_agent_never_answers_a_question_put_to_the_person(
    server: Server, db: Database
) -> None:
    """An agent asks the person (`ask_user`); it, or another of the person's agents, then
    tries to answer in the person's place, through each way an agent writes: nothing takes."""
    async with mcp_client(server.base_url, token_for("alice", agent="coder")) as coder:
        asking = asyncio.create_task(coder.call_tool("ask_user", {"question": "Merge it?"}))

        async def asked() -> bool:
            return await _question(db) is not None

        await eventually(asked)
        question = await _question(db)
        assert question is not None
        question_id = question["message_id"]
        for agent in ("coder", "planner"):
            async with mcp_client(server.base_url, token_for("alice", agent=agent)) as other:
                plain = data(
                    await other.call_tool("post_message", {"text": "yes", "reply_to": question_id})
                )
                assert plain["kind"] == "message"
            actor = Actor(server, "alice", agent)
            refused = await actor.call(
                "POST", f"/questions/{question_id}/answer", json={"text": "yes"}
            )
            assert refused.status_code == 403, refused.text
            inbox = await actor.call(
                "POST",
                "/inbox/messages",
                json={"text": "yes", "kind": "answer", "reply_to": question_id},
            )
            assert inbox.status_code == 403, inbox.text
        assert (await _question(db)) == {**question, "status": "open"}
        await Actor(server, "alice").ok(
            "POST", f"/questions/{question_id}/answer", 201, json={"text": "no"}
        )
        answered = data(await asyncio.wait_for(asking, 30))
        assert answered["answer"] == "no" and answered["answered_by"] == "alice"
