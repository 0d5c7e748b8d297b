"""The offline model's reading of a command and its sentence about a tool's result."""

from __future__ import annotations

import pytest

from parley.assistant.offline import Intent, describe, parse

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("add a task to buy milk", Intent("add_task", {"title": "buy milk"})),
        ("Remind me to Call Mom!", Intent("add_task", {"title": "Call Mom"})),
        ("show my pending tasks", Intent("list_tasks", {"status": "pending"})),
        ("what have I completed?", Intent("list_tasks", {"status": "completed"})),
        ("list my tasks", Intent("list_tasks", {"status": "all"})),
        ("mark task 3 as done", Intent("complete_task", {"task_id": 3})),
        ("delete task #2", Intent("delete_task", {"task_id": 2})),
        ("rename task 1 to call mom", Intent("update_task", {"task_id": 1, "title": "call mom"})),
        (
            "update task 1 description to use oat milk",
            Intent("update_task", {"task_id": 1, "description": "use oat milk"}),
        ),
        (
            "start a work session to fix the test",
            Intent("start_work_session", {"prompt": "fix the test"}),
        ),
        ("what's the weather", None),
    ],
)
def test_parse(text, intent):
    assert parse(text) == intent


def test_tool_results_read_as_one_plain_sentence():
    added = {"task_id": 4, "status": "created", "title": "buy milk"}
    assert describe("add_task", {"title": "buy milk"}, added) == "Added task #4 'buy milk'."
    listed = {"tasks": [{"task_id": 1, "title": "a", "completed": True}], "count": 1}
    assert describe("list_tasks", {"status": "all"}, listed) == "Your tasks:\n- #1 a (done)"
    assert describe("list_tasks", {"status": "pending"}, {"tasks": []}) == (
        "You have no pending tasks."
    )
    error = {"error": "Error executing tool complete_task: Task 9 not found"}
    assert describe("complete_task", {"task_id": 9}, error) == (
        "I couldn't do that: Task 9 not found."
    )
