"""Claude Code's messages as stored outputs, and the tool calls a reply lists (no process)."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from parley.work.events import CallLog, Output, describe_tool, outputs

pytestmark = pytest.mark.unit


def use(tool_use_id: str, tool: str = "Bash", **tool_input: Any) -> Output:
    [output] = outputs(
        AssistantMessage(content=[ToolUseBlock(tool_use_id, tool, tool_input)], model="m")
    )
    return output


def result(tool_use_id: str, text: str, *, is_error: bool = False) -> Output:
    block = ToolResultBlock(tool_use_id, [{"type": "text", "text": text}], is_error)
    [output] = outputs(UserMessage(content=[block]))
    return output


def finished(**extra: Any) -> ResultMessage:
    fields: dict[str, Any] = {
        "subtype": "success",
        "duration_ms": 1500,
        "duration_api_ms": 1000,
        "is_error": False,
        "num_turns": 2,
        "session_id": "s1",
        "total_cost_usd": 0.0004,
        "result": "done",
    }
    return ResultMessage(**(fields | extra))


def test_a_call_and_its_result_become_one_record_in_the_chats_shape() -> None:
    log = CallLog()
    for output in (use("t1", command="ls"), result("t1", "a.txt")):
        log.add(output)
    assert log.take() == [{"tool": "Bash", "parameters": {"command": "ls"}, "result": "a.txt"}]


def test_a_failed_or_denied_call_reads_as_an_error_like_a_chat_tools() -> None:
    log = CallLog()
    log.add(use("t1", command="rm -rf /"))
    log.add(result("t1", "The person denied this tool call.", is_error=True))
    [record] = log.take()
    assert record["result"] == {"error": "The person denied this tool call."}


def test_calls_keep_their_order_and_a_call_without_result_stays_null() -> None:
    log = CallLog()
    log.add(use("a", "Edit", file_path="x.py"))
    log.add(use("b", command="make"))
    log.add(result("a", "edited"))
    assert [(r["tool"], r["result"]) for r in log.take()] == [("Edit", "edited"), ("Bash", None)]


def test_take_starts_the_next_prompt_with_no_calls() -> None:
    log = CallLog()
    log.add(use("a", command="ls"))
    assert len(log.take()) == 1
    log.add(result("a", "late"))  # a result for a call of the prompt before: not this one's
    assert log.take() == []


def test_a_resumed_call_is_listed_once_with_the_result_it_gets_now() -> None:
    log = CallLog()
    log.use("t1", "Bash", {"command": "make"})  # seeded from the parked call
    log.add(use("t1", command="make"))  # Claude Code may announce it again
    log.add(result("t1", "built"))
    assert log.take() == [{"tool": "Bash", "parameters": {"command": "make"}, "result": "built"}]


def test_text_and_results_of_a_prompt_are_no_tool_calls() -> None:
    log = CallLog()
    for output in outputs(AssistantMessage(content=[TextBlock("hi")], model="m")):
        log.add(output)
    for output in outputs(finished()):
        log.add(output)
    assert log.take() == []


def test_a_tool_call_reads_as_one_line() -> None:
    assert describe_tool("Bash", {"command": "ls -la"}) == "Bash: `ls -la`"
    assert describe_tool("Edit", {"file_path": "a.py", "old": "x"}) == "Edit: a.py"
    assert describe_tool("Grep", {"pattern": "TODO"}) == "Grep: TODO"
    assert describe_tool("Odd", {"n": 1}) == 'Odd: {"n": 1}'


def test_a_results_summary_says_how_the_prompt_ended() -> None:
    [done] = outputs(finished())
    assert done.content == "Done in 1.5 s, 2 turn(s), $0.0004" and not done.error
    [stopped] = outputs(finished(), stopped=True)
    assert (stopped.content, stopped.meta["stopped"]) == ("Stopped.", True)
    [failed] = outputs(finished(is_error=True, result="boom"))
    assert failed.error and failed.meta["type"] == "error" and "boom" in failed.content
    [closing] = outputs(finished(is_error=True, result="boom"), reported=True)
    assert not closing.error and closing.meta["failed"] and closing.meta["detail"] == "boom"
    [parked] = outputs(finished(stop_reason="tool_deferred"))
    assert parked.content.startswith("Paused until the person answers")
