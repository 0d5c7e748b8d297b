"""A work conversation through the API, with the real `claude` binary on a fake API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.work.conftest import (
    is_result,
    messages,
    needs_cli,
    new_work,
    of_type,
    send,
    wait_for_message,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say

pytestmark = [needs_cli, pytest.mark.slow]


async def question_state(server: Any, user: str, question_id: int) -> dict[str, Any]:
    response = await server.client.get(
        f"/api/{user}/questions/{question_id}", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def outputs(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in found if m["kind"] == "output" and of_type(m) == kind]


async def test_prompt_answers_with_the_result_and_keeps_context(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("Hello from Claude", chunks=4), say("I remember the banana"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        first = await server.chat("ann", "remember the word banana", conversation)
        assert first.status_code == 200, first.text
        assert first.json()["response"] == "Hello from Claude"
        second = await server.chat("ann", "what was the word?", conversation)
        assert second.json()["response"] == "I remember the banana"
        # The follow-up went to the same process: the API saw the first exchange again.
        sent = fake_api.texts_sent(-1)
        assert "remember the word banana" in sent and "Hello from Claude" in sent
        found = await messages(server, "ann", conversation)
        assert [m["content"] for m in outputs(found, "text")] == [
            "Hello from Claude",
            "I remember the banana",
        ]
        results = outputs(found, "result")
        assert len(results) == 2 and results[0]["meta"]["cost_usd"] > 0
        health = (await server.client.get("/api/health")).json()
        assert health["work"] == {"available": True, "reason": None}
        state = await work_state(server, "ann", conversation)
        assert state["status"] == "idle" and state["cost_usd"] > 0 and state["run_id"]
        assert len({m["meta"].get("session_id") for m in results}) == 1


async def test_bash_tool_use_shows_command_and_result_after_allow(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(bash("echo made > proof.txt; echo the-output"), say("Done it"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        assert (await send(server, "ann", conversation, "make a file")).status_code == 201
        question = await wait_for_message(
            server, "ann", conversation, lambda m: m["kind"] == "question"
        )
        assert "echo made > proof.txt" in question["content"]
        assert question["meta"]["permission"]["tool"] == "Bash"
        assert (await work_state(server, "ann", conversation))["status"] == "waiting_permission"
        # One kind of question for the person: a permission prompt is open like an agent's.
        asked = await question_state(server, "ann", question["id"])
        assert (asked["status"], asked["asked_by"]) == ("open", "claude-code")
        answer = await send(server, "ann", conversation, "Allow", reply_to=question["id"])
        assert answer.status_code == 201 and answer.json()["kind"] == "answer"
        assert answer.json()["answered"] == question["id"]
        answered = await question_state(server, "ann", question["id"])
        assert answered["status"] == "answered"
        assert answered["answer"]["id"] == answer.json()["id"]
        await wait_for_message(server, "ann", conversation, is_result)
        found = await messages(server, "ann", conversation)
        (use,) = outputs(found, "tool_use")
        assert "echo made > proof.txt" in use["content"]
        (result,) = outputs(found, "tool_result")
        assert result["content"] == "the-output"
        workspace = server.settings.workspaces / "ann"
        assert (workspace / "proof.txt").read_text().strip() == "made"


async def test_a_work_reply_lists_the_tools_its_prompt_ran(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(
        bash("echo the-output"),
        bash("ls /no-such-folder-here"),
        say("Ran both"),
        say("Nothing to run this time"),
    )
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        conversation = await new_work(server, "ann")
        reply = await server.chat("ann", "run two commands", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "Ran both"
        ran, failed = reply.json()["tool_calls"]
        assert ran == {
            "tool": "Bash",
            "parameters": {"command": "echo the-output", "description": "echo the-output"},
            "result": "the-output",
        }
        assert failed["tool"] == "Bash"
        assert failed["parameters"]["command"] == "ls /no-such-folder-here"
        assert "No such file" in failed["result"]["error"]
        # The stored reply (the prompt's closing result) keeps the same list.
        (result,) = outputs(await messages(server, "ann", conversation), "result")
        assert result["tool_calls"] == reply.json()["tool_calls"]
        # The next prompt ran no tool: its reply lists none of the first one's.
        again = await server.chat("ann", "and now?", conversation)
        assert again.json() == {
            "conversation_id": conversation,
            "response": "Nothing to run this time",
            "tool_calls": [],
        }
        last = outputs(await messages(server, "ann", conversation), "result")[-1]
        assert last["tool_calls"] is None


async def test_denied_command_is_not_run(work_server: Any, fake_api: FakeAnthropic) -> None:
    fake_api.script(bash("touch never.txt"), say("Understood"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "make a file")
        question = await wait_for_message(
            server, "ann", conversation, lambda m: m["kind"] == "question"
        )
        await send(server, "ann", conversation, "no", reply_to=question["id"])
        await wait_for_message(server, "ann", conversation, is_result)
        assert not (server.settings.workspaces / "ann" / "never.txt").exists()
        (result,) = outputs(await messages(server, "ann", conversation), "tool_result")
        assert result["error"] is True
        assert "denied" in fake_api.texts_sent(-1)


async def title_of(server: Any, user: str, conversation_id: int) -> str:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    title: str = response.json()["title"]
    return title


async def test_a_work_conversation_is_named_after_its_first_prompt_like_a_chat(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("Listed"), say("Counted"), say("Done"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        assert await title_of(server, "ann", conversation) == "New conversation"
        await server.chat("ann", "  List the\nfiles in this   folder ", conversation)
        assert await title_of(server, "ann", conversation) == "List the files in this folder"
        # A later prompt does not rename it, and a name the person chose stays.
        await server.chat("ann", "Now count them", conversation)
        assert await title_of(server, "ann", conversation) == "List the files in this folder"

        renamed = await new_work(server, "ann")
        response = await server.client.patch(
            f"/api/ann/conversations/{renamed}",
            json={"title": "My refactor"},
            headers=server.headers("ann"),
        )
        assert response.status_code == 200, response.text
        await server.chat("ann", "Start the refactor", renamed)
        assert await title_of(server, "ann", renamed) == "My refactor"
