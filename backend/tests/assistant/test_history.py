"""The model's input built from stored messages: well-formed whatever happened."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from parley.assistant.history import FAILED_NOTE, UNANSWERED_NOTE, history_items
from parley.messages.store import StoredMessage

pytestmark = pytest.mark.unit


def msg(role: str, content: str, *, error: bool = False, tools: Any = None) -> StoredMessage:
    msg.counter = getattr(msg, "counter", 0) + 1  # type: ignore[attr-defined]
    return StoredMessage(
        id=msg.counter,  # type: ignore[attr-defined]
        conversation_id=1,
        user_id="alice",
        role=role,
        author="bot" if role == "agent" else role,
        kind="message",
        content=content,
        tool_calls=tools,
        error=error,
        reply_to=None,
        meta=None,
        created_at=datetime.now(UTC),
    )


def shape(items: list[Any]) -> list[tuple[str, str]]:
    return [(i.get("role") or i["type"], i.get("content") or i.get("name") or "") for i in items]


def test_tool_calls_are_replayed_before_the_reply_with_matching_ids():
    record = {"tool": "add_task", "parameters": {"title": "milk"}, "result": {"task_id": 1}}
    items = history_items(
        [
            msg("user", "add milk"),
            msg("assistant", "Added.", tools=[record]),
            msg("user", "its number?"),
        ]
    )
    assert shape(items) == [
        ("user", "add milk"),
        ("function_call", "add_task"),
        ("function_call_output", ""),
        ("assistant", "Added."),
        ("user", "its number?"),
    ]
    call, output = items[1], items[2]
    assert call["call_id"] == output["call_id"]  # type: ignore[typeddict-item]
    assert json.loads(output["output"]) == {"task_id": 1}  # type: ignore[typeddict-item]


def test_roles_alternate_after_failures_crashes_and_agents():
    items = history_items(
        [
            msg("assistant", "left over from before the window"),
            msg("user", "one"),
            msg("assistant", "Sorry", error=True),
            msg("user", "two"),  # crashed: no reply stored
            msg("agent", "status: busy"),
            msg("user", "three"),
        ]
    )
    assert shape(items) == [
        ("user", "one"),
        ("assistant", FAILED_NOTE),
        ("user", "two"),
        ("assistant", UNANSWERED_NOTE),
        ("user", "[bot] status: busy"),
        ("assistant", UNANSWERED_NOTE),
        ("user", "three"),
    ]


def test_a_retry_ends_at_the_persons_message_and_its_answer_replaces_the_note():
    failed = [msg("user", "one"), msg("assistant", "Sorry", error=True)]
    assert shape(history_items(failed)) == [("user", "one")]
    answered = [*failed, msg("assistant", "Done."), msg("user", "next")]
    assert shape(history_items(answered)) == [
        ("user", "one"),
        ("assistant", "Done."),
        ("user", "next"),
    ]
