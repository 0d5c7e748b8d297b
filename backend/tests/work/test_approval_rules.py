"""The person's approval rules in a real work session: the real `claude` against the fake
API, its calls allowed or denied by a rule without a question, and "Always allow this"
answering the same call the next time."""

from __future__ import annotations

from typing import Any

import pytest

from tests.runs.helpers import Actor
from tests.work.conftest import (
    RESULT_WITHIN,
    asked,
    is_question,
    messages,
    needs_cli,
    new_work,
    result_of,
    send,
    wait_for_message,
)
from tests.work.fake_anthropic import FakeAnthropic, Reply, ToolUse, bash, say

pytestmark = pytest.mark.timeout(400)


@pytest.mark.slow
@needs_cli
async def test_an_allow_rule_lets_a_write_through_and_a_deny_rule_denies_unasked(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    async with work_server() as server:  # the default mode asks about edits and commands
        ann = Actor(server, "ann")
        for decision, pattern in (("allow", "Write(notes/**)"), ("deny", "Bash(rm:*)")):
            await ann.ok(
                "POST", "/approval-rules", 201, json={"decision": decision, "pattern": pattern}
            )
        workspace = server.settings.workspaces / "ann"
        plan = workspace / "notes" / "plan.md"
        fake_api.script(
            Reply([ToolUse("Write", {"file_path": str(plan), "content": "step one\n"})]),
            bash("rm -rf notes"),
            say("Both tried"),
        )
        conversation = await new_work(server, "ann")
        sent = await send(server, "ann", conversation, "write the plan, then clean up")
        await result_of(server, conversation, sent)
        found = await messages(server, "ann", conversation)
        assert [m for m in found if is_question(m)] == []  # nobody was asked
        assert plan.read_text() == "step one\n"  # the allow rule let the Write through
        # The deny rule kept rm from running, and Claude Code was told which rule said no.
        assert plan.exists()
        told = fake_api.texts_sent(-1)
        assert "Bash(rm:*)" in told and "Denied by the person's approval rule" in told
        assert any(m["content"] == "Both tried" for m in found)


@pytest.mark.slow
@needs_cli
async def test_always_allow_answers_the_call_and_the_same_call_is_never_asked_again(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    command = "echo ran >> count.txt"
    fake_api.script(bash(command), say("First"), bash(command), say("Second, unasked"))
    async with work_server(PARLEY_WORK_PERMISSION_WAIT=30) as server:
        ann = Actor(server, "ann")
        conversation, question = await asked(server, "count")
        always = await ann.call("POST", f"/approval-rules/from-question/{question['id']}")
        assert always.status_code == 201, always.text
        made = always.json()
        assert made["rule"]["pattern"] == f"Bash({command})"
        assert (made["rule"]["decision"], made["rule"]["source"]) == ("allow", "always")
        assert made["rule"]["question_id"] == question["id"]
        assert made["answer"]["answered"] == question["id"]
        await wait_for_message(
            server, "ann", conversation, lambda m: m["content"] == "First", RESULT_WITHIN
        )
        # Answered once: a second "always" on the same question is refused, nothing added.
        again = await ann.call("POST", f"/approval-rules/from-question/{question['id']}")
        assert again.status_code == 409
        assert len(await ann.ok("GET", "/approval-rules")) == 1

        second = await send(server, "ann", conversation, "count again")
        assert second.status_code == 201, second.text
        await wait_for_message(
            server, "ann", conversation, lambda m: m["content"] == "Second, unasked", RESULT_WITHIN
        )
        found = await messages(server, "ann", conversation)
        assert [m["id"] for m in found if is_question(m)] == [question["id"]]
        assert (server.settings.workspaces / "ann" / "count.txt").read_text() == "ran\nran\n"
