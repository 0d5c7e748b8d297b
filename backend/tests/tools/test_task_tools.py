"""The five task tools through the real MCP client, in-process, against real PostgreSQL.

Results are what a model (or a remote agent) reads: the happy paths return the documented
shapes, and every bad call is an `is_error` result with a readable message that changes
nothing. The user always comes from the server's resolver, never from an argument.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from parley import tasks
from parley.tools.identity import USER_META_KEY, fixed_user, from_request_meta
from tests.tools.served import tool_server

TOOLS = {"add_task", "list_tasks", "complete_task", "delete_task", "update_task"}


@asynccontextmanager
async def connect(db, user: str) -> AsyncIterator[Client]:
    """An in-process MCP client whose every call is made as `user`.

    (A context manager inside each test, not a fixture: the client's task group must be
    entered and left by the same task.)"""
    async with Client(tool_server(db, fixed_user(user))) as client:
        yield client


async def call(client: Client, tool: str, meta: dict[str, Any] | None = None, **args: Any) -> Any:
    """The structured result of a call that must succeed."""
    result = await client.call_tool(tool, args, meta=meta)
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    return result.structured_content


async def fails(client: Client, tool: str, **args: Any) -> str:
    """The error text of a call that must fail (as a result, not as a crash)."""
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool}({args}) should have failed, got {result.structured_content}"
    text = _text(result)
    assert text.strip(), "an error result must say what went wrong"
    return text


def _text(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


async def state(db, user: str) -> list[tuple[Any, ...]]:
    found = await tasks.list_tasks(db, user_id=user)
    return [(t.id, t.title, t.description, t.completed, t.updated_at) for t in found]


# --- the happy paths ------------------------------------------------------------------------


async def test_the_server_offers_exactly_the_five_task_tools_with_no_user_argument(db):
    async with connect(db, "alice") as alice:
        listed = {t.name: t for t in (await alice.list_tools()).tools}
        assert set(listed) >= TOOLS
        for name in TOOLS:
            tool = listed[name]
            assert tool.description and len(tool.description) > 20, f"{name} needs a description"
            properties = tool.input_schema.get("properties", {})
            assert not {"user_id", "user"} & set(properties), (
                f"{name} must not take a user argument"
            )


async def test_add_task_returns_the_created_task_with_a_trimmed_title(db):
    async with connect(db, "alice") as alice:
        result = await call(alice, "add_task", title="   buy   milk \n", description="  2 litres ")
        assert set(result) == {"task_id", "status", "title"}
        assert result["status"] == "created" and result["title"] == "buy milk"
        assert isinstance(result["task_id"], int)
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert (stored.id, stored.title, stored.description, stored.completed) == (
            result["task_id"],
            "buy milk",
            "2 litres",
            False,
        )


async def test_add_task_accepts_the_longest_title_and_description(db):
    async with connect(db, "alice") as alice:
        result = await call(alice, "add_task", title="t" * 500, description="d" * 5000)
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert (len(stored.title), len(stored.description or "")) == (500, 5000)
        assert result["title"] == "t" * 500


async def test_list_tasks_filters_by_status_and_shows_every_field(db):
    async with connect(db, "alice") as alice:
        ids = [(await call(alice, "add_task", title=t))["task_id"] for t in ("one", "two", "three")]
        await call(alice, "complete_task", task_id=ids[1])

        everything = await call(alice, "list_tasks")
        assert [t["title"] for t in everything["tasks"]] == ["one", "two", "three"]  # oldest first
        for task in everything["tasks"]:
            assert set(task) >= {"task_id", "title", "description", "completed", "created_at"}
            datetime.fromisoformat(task["created_at"])
        assert everything["tasks"][0] == {
            **everything["tasks"][0],
            "task_id": ids[0],
            "description": None,
            "completed": False,
        }
        assert (await call(alice, "list_tasks", status="all"))["tasks"] == everything["tasks"]

        pending = await call(alice, "list_tasks", status="pending")
        assert [(t["task_id"], t["completed"]) for t in pending["tasks"]] == [
            (ids[0], False),
            (ids[2], False),
        ]
        completed = await call(alice, "list_tasks", status="completed")
        assert [(t["task_id"], t["title"], t["completed"]) for t in completed["tasks"]] == [
            (ids[1], "two", True)
        ]


async def test_list_tasks_on_an_empty_list_is_empty_not_an_error(db):
    async with connect(db, "alice") as alice:
        result = await call(alice, "list_tasks", status="pending")
        assert result["tasks"] == []


async def test_complete_task_marks_it_done(db):
    async with connect(db, "alice") as alice:
        task_id = (await call(alice, "add_task", title="water the plants"))["task_id"]
        result = await call(alice, "complete_task", task_id=task_id)
        assert result == {"task_id": task_id, "status": "completed", "title": "water the plants"}
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert stored.completed is True
        # completing it again is harmless
        again = await call(alice, "complete_task", task_id=task_id)
        assert again["status"] == "completed"


async def test_delete_task_removes_only_that_task(db):
    async with connect(db, "alice") as alice:
        keep = (await call(alice, "add_task", title="keep me"))["task_id"]
        drop = (await call(alice, "add_task", title="drop me"))["task_id"]
        result = await call(alice, "delete_task", task_id=drop)
        assert result == {"task_id": drop, "status": "deleted", "title": "drop me"}
        assert [t.id for t in await tasks.list_tasks(db, user_id="alice")] == [keep]
        # a deleted task is gone for good
        assert "not found" in (await fails(alice, "delete_task", task_id=drop)).lower()


async def test_update_task_changes_title_and_description(db):
    async with connect(db, "alice") as alice:
        task_id = (await call(alice, "add_task", title="call dad", description="about sunday"))[
            "task_id"
        ]
        renamed = await call(alice, "update_task", task_id=task_id, title="  call   mom ")
        assert renamed == {"task_id": task_id, "status": "updated", "title": "call mom"}
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert (stored.title, stored.description) == ("call mom", "about sunday")

        described = await call(alice, "update_task", task_id=task_id, description="use oat milk")
        assert described["title"] == "call mom"
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert (stored.title, stored.description) == ("call mom", "use oat milk")

        both = await call(alice, "update_task", task_id=task_id, title="call gran", description="")
        assert both["title"] == "call gran"
        [stored] = await tasks.list_tasks(db, user_id="alice")
        assert (stored.title, stored.description) == ("call gran", None)  # "" clears it


# --- bad calls: a readable error, nothing changed -------------------------------------------


async def test_unknown_ids_are_clear_errors_that_change_nothing(db):
    async with connect(db, "alice") as alice:
        await call(alice, "add_task", title="the only task")
        before = await state(db, "alice")
        for unknown in (999, 0, -1, 2**31, 2**63):
            for tool, extra in (
                ("complete_task", {}),
                ("delete_task", {}),
                ("update_task", {"title": "new title"}),
            ):
                message = await fails(alice, tool, task_id=unknown, **extra)
                assert "not found" in message.lower(), message
                assert str(unknown) in message, message
                assert "sqlalchemy" not in message.lower() and "[SQL" not in message, message
        assert await state(db, "alice") == before


async def test_another_users_task_is_not_found_and_stays_as_it_was(db):
    async with connect(db, "alice") as alice, connect(db, "bob") as bob:
        bobs = (await call(bob, "add_task", title="bob's secret", description="private"))["task_id"]
        before = await state(db, "bob")
        for tool, extra in (
            ("complete_task", {}),
            ("delete_task", {}),
            ("update_task", {"title": "hijacked"}),
            ("update_task", {"description": "hijacked"}),
        ):
            message = await fails(alice, tool, task_id=bobs, **extra)
            assert "not found" in message.lower(), message
            assert "bob's secret" not in message, "the error must not leak the other user's task"
        assert await state(db, "bob") == before
        assert (await call(alice, "list_tasks"))["tasks"] == []


@pytest.mark.parametrize(
    ("tool", "args", "words"),
    [
        ("add_task", {"title": ""}, "empty"),
        ("add_task", {"title": "   \n\t "}, "empty"),
        ("add_task", {"title": "x" * 501}, "500"),
        ("add_task", {"title": "ok", "description": "d" * 5001}, "5000"),
        ("update_task", {"title": ""}, "empty"),
        ("update_task", {"title": "    "}, "empty"),
        ("update_task", {"title": "x" * 501}, "500"),
        ("update_task", {"description": "d" * 5001}, "5000"),
        ("update_task", {}, "nothing to update"),
        ("update_task", {"title": None, "description": None}, "nothing to update"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
async def test_invalid_values_are_clear_errors_that_change_nothing(db, tool, args, words):
    async with connect(db, "alice") as alice:
        task_id = (await call(alice, "add_task", title="original", description="as it was"))[
            "task_id"
        ]
        before = await state(db, "alice")
        if tool == "update_task":
            args = {"task_id": task_id, **args}
        message = await fails(alice, tool, **args)
        assert words in message.lower(), message
        assert await state(db, "alice") == before


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("add_task", {}),
        ("add_task", {"title": 123}),
        ("add_task", {"title": ["buy", "milk"]}),
        ("add_task", {"title": "ok", "description": {"x": 1}}),
        ("list_tasks", {"status": "bogus"}),
        ("list_tasks", {"status": 1}),
        ("complete_task", {}),
        ("complete_task", {"task_id": "abc"}),
        ("complete_task", {"task_id": 1.5}),
        ("delete_task", {"task_id": None}),
        ("delete_task", {"task_id": [1]}),
        ("update_task", {"task_id": "one", "title": "x"}),
        ("update_task", {"task_id": 1, "title": 42}),
    ],
    ids=repr,
)
async def test_wrong_argument_types_are_error_results_not_crashes(db, tool, args):
    async with connect(db, "alice") as alice:
        await call(alice, "add_task", title="original")
        before = await state(db, "alice")
        message = await fails(alice, tool, **args)
        assert tool in message or "valid" in message.lower() or "required" in message.lower(), (
            message
        )
        assert await state(db, "alice") == before
        # the connection is still fine afterwards
        assert (await call(alice, "list_tasks"))["tasks"][0]["title"] == "original"


async def test_an_unknown_tool_is_an_error_result(db):
    async with connect(db, "alice") as alice:
        result = await alice.call_tool("drop_all_tasks", {})
        assert result.is_error


# --- identity -------------------------------------------------------------------------------


async def test_a_user_id_argument_does_not_change_whose_task_it_is(db):
    async with connect(db, "alice") as alice, connect(db, "bob") as bob:
        # The SDK ignores an argument the tool does not declare: the task is alice's.
        mine = await call(alice, "add_task", title="mine", user_id="bob")
        assert [t.title for t in await tasks.list_tasks(db, user_id="alice")] == ["mine"]
        assert await tasks.list_tasks(db, user_id="bob") == []
        await call(bob, "add_task", title="bob's first")
        bobs = await call(bob, "add_task", title="bob's")
        listed = await call(alice, "list_tasks", status="all", user_id="bob")
        assert [t["title"] for t in listed["tasks"]] == ["mine"]
        # Bob's task 2 is nobody's task 2 for alice, whatever user_id says.
        assert (mine["task_id"], bobs["task_id"]) == (1, 2)
        denied = await alice.call_tool(
            "delete_task", {"task_id": bobs["task_id"], "user_id": "bob"}
        )
        assert denied.is_error and "not found" in _text(denied).lower()
        assert [t.title for t in await tasks.list_tasks(db, user_id="bob")] == [
            "bob's first",
            "bob's",
        ]


async def test_request_meta_names_the_user_and_is_required(db):
    server = tool_server(db, from_request_meta)
    async with Client(server) as client:
        as_alice = {USER_META_KEY: "alice"}
        as_bob = {USER_META_KEY: "bob"}
        await call(client, "add_task", meta=as_alice, title="alice's")
        await call(client, "add_task", meta=as_bob, title="bob's")
        listed = await call(client, "list_tasks", meta=as_alice)
        assert [t["title"] for t in listed["tasks"]] == ["alice's"]

        for meta in (None, {}, {USER_META_KEY: ""}, {USER_META_KEY: 7}, {"user_id": "alice"}):
            result = await client.call_tool("add_task", {"title": "nobody's"}, meta=meta)
            assert result.is_error, meta
            assert "user" in _text(result).lower()
            anon = await client.call_tool("list_tasks", {}, meta=meta)
            assert anon.is_error, meta
        assert [t.title for t in await tasks.list_tasks(db, user_id="alice")] == ["alice's"]
        assert [t.title for t in await tasks.list_tasks(db, user_id="bob")] == ["bob's"]
