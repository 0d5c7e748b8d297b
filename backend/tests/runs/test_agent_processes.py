"""Agents as separate processes (the examples: the official `mcp` client over streamable
HTTP, and plain REST) against `parley serve` processes; the test plays the person."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import httpx

from parley.db import Database
from tests.conftest import _SPAWNED, free_port, spawn_server, token_for

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


class AgentProcess:
    """An example agent; its JSON lines on stdout say what it did."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.steps: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, script: str, *args: str) -> AgentProcess:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLES / script),
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        _SPAWNED.append(process)
        return cls(process)

    async def step(self, name: str, within: float = 60) -> dict[str, Any]:
        """Read its output up to the step called `name`."""

        async def read() -> dict[str, Any]:
            assert self.process.stdout is not None
            while line := await self.process.stdout.readline():
                step = json.loads(line)
                self.steps.append(step)
                if step.get("step") == name:
                    return dict(step)
            assert self.process.stderr is not None
            raise AssertionError((await self.process.stderr.read()).decode()[-3000:])

        return await asyncio.wait_for(read(), within)


class Person:
    def __init__(self, base: str, user: str = "alice") -> None:
        self.base, self.user = base, user

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token_for(self.user)}"}
        async with httpx.AsyncClient(base_url=self.base, timeout=30) as client:
            return await client.request(
                method, f"/api/{self.user}{path}", headers=headers, **kwargs
            )

    async def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.call(method, path, **kwargs)
        assert response.status_code < 300, response.text
        return response.json() if response.content else None


async def _tasks(person: Person) -> list[dict[str, Any]]:
    for title in ("write the report", "call the bank"):
        await person.ok("POST", "/tasks", json={"title": title})
    found: list[dict[str, Any]] = await person.ok("GET", "/tasks")
    return found


async def _open_question(person: Person) -> dict[str, Any]:
    """The question the agent's run is waiting on, once it is there."""
    for _ in range(200):
        for run in await person.ok("GET", "/runs"):
            for message in await person.ok("GET", f"/runs/{run['id']}/messages"):
                if message["kind"] == "question":
                    return dict(message)
        await asyncio.sleep(0.1)
    raise AssertionError("no question was asked")


def _key(task: dict[str, Any]) -> int:
    return int(task["number"])


async def _answered_and_done(person: Person, agent: AgentProcess, task: dict[str, Any]) -> None:
    assert (await agent.step("answered"))["answer"] == f"#{_key(task)} please"
    finished = await agent.step("finished")
    assert finished["status"] == "completed"
    assert await agent.process.wait() == 0
    tasks = {t["title"]: t for t in await person.ok("GET", "/tasks")}
    assert tasks[task["title"]]["completed"] is True
    assert [t["completed"] for t in tasks.values()].count(True) == 1  # that one only
    [run] = await person.ok("GET", "/runs")
    assert run["status"] == "completed" and run["progress"] == 100
    assert run["agent"] == "planner"


async def test_mcp_agent_asks_over_http_and_acts_on_the_answer(migrated: str, db: Database) -> None:
    _server, base = await spawn_server(migrated)
    person = Person(base)
    tasks = await _tasks(person)
    agent = await AgentProcess.start(
        "mcp_agent.py", "--url", base, "--token", token_for("alice", agent="planner")
    )
    await agent.step("posted")
    # Written first, before any UI: it is in the inbox, unread, from the agent.
    inbox = await person.ok("GET", "/inbox")
    assert inbox["unread"] >= 1
    [hello] = await person.ok("GET", f"/conversations/{inbox['id']}/messages")
    assert (hello["role"], hello["author"]) == ("agent", "planner")

    # ask_user blocks inside one tool call: the person finds the question in the run.
    question = await _open_question(person)
    assert "Which task" in question["content"]
    conversation = question["conversation_id"]
    empty = await person.call(
        "POST",
        f"/conversations/{conversation}/messages",
        json={"text": "  ", "reply_to": question["id"]},
    )
    assert empty.status_code == 422
    # Refused, so still open: the agent's call can only return with the real answer below.
    still = await person.ok("GET", f"/questions/{question['id']}")
    assert (still["status"], still["answer"]) == ("open", None)
    assert agent.process.returncode is None  # still waiting inside ask_user
    target = tasks[1]
    await person.ok(
        "POST",
        f"/conversations/{conversation}/messages",
        json={"text": f"#{_key(target)} please", "reply_to": question["id"]},
    )
    assert (await agent.step("asked"))["status"] == "answered"  # the same call returned
    await _answered_and_done(person, agent, target)


async def test_rest_agent_long_polls_for_the_answer(migrated: str, db: Database) -> None:
    _server, base = await spawn_server(migrated)
    person = Person(base)
    tasks = await _tasks(person)
    agent = await AgentProcess.start(
        "rest_agent.py",
        "--url",
        base,
        "--user",
        "alice",
        "--token",
        token_for("alice", agent="planner"),
    )
    asked = await agent.step("asked")
    state = await person.ok("GET", f"/questions/{asked['question_id']}")
    # A plain message (no reply_to) answers the oldest open question in that conversation.
    await person.ok(
        "POST",
        f"/conversations/{state['question']['conversation_id']}/messages",
        json={"text": f"#{_key(tasks[0])} please"},
    )
    await _answered_and_done(person, agent, tasks[0])


async def test_a_restart_while_the_agent_waits_loses_nothing(migrated: str, db: Database) -> None:
    """The agent's server dies while it waits; the person answers through another instance
    meanwhile; the agent's server comes back and `wait_for_answer` returns that answer."""
    port = free_port()
    first, base = await spawn_server(migrated, port, PARLEY_TOOL_WAIT_MAX="1")
    _other, other = await spawn_server(migrated)
    person = Person(other)
    tasks = await _tasks(person)
    agent = await AgentProcess.start(
        "mcp_agent.py", "--url", base, "--token", token_for("alice", agent="planner")
    )
    asked = await agent.step("asked")
    assert asked["status"] == "waiting"
    await agent.step("waited")  # the wait goes round: a fresh wait_for_answer call each time
    with contextlib.suppress(ProcessLookupError):
        os.killpg(first.pid, signal.SIGKILL)
    await first.wait()
    await agent.step("reconnecting")
    await person.ok(
        "POST",
        f"/runs/{(await person.ok('GET', '/runs'))[0]['id']}/messages",
        json={"text": f"#{_key(tasks[1])} please", "reply_to": asked["question_id"]},
    )
    await spawn_server(migrated, port, PARLEY_TOOL_WAIT_MAX="1")
    await _answered_and_done(Person(base), agent, tasks[1])


async def test_two_agent_processes_delegate_through_the_thread(migrated: str, db: Database) -> None:
    """The demo's architect and coder, each its own process, on two instances."""
    _a, first = await spawn_server(migrated)
    _b, second = await spawn_server(migrated)
    coder = await AgentProcess.start(
        "delegation_demo.py",
        "--url",
        second,
        "--role",
        "coder",
        "--token",
        token_for("alice", agent="coder"),
    )
    architect = await AgentProcess.start(
        "delegation_demo.py",
        "--url",
        first,
        "--role",
        "architect",
        "--token",
        token_for("alice", agent="architect"),
    )
    thread = (await architect.step("delegated"))["thread_id"]
    assert (await coder.step("claimed"))["thread_id"] == thread
    assert (await architect.step("question"))["text"] == "authlib or python-oauth2?"
    assert (await coder.step("answered"))["answer"] == "authlib"
    finished = await architect.step("finished")
    assert finished == {
        "step": "finished",
        "status": "completed",
        "result": "Auth uses OAuth2 via authlib",
    }
    assert await architect.process.wait() == 0 and await coder.process.wait() == 0
    person = Person(first)
    kinds = [m["kind"] for m in await person.ok("GET", f"/conversations/{thread}/messages")]
    assert kinds == ["delegation", "question", "answer", "status", "status", "completion"]
    runs = {r["agent"]: r for r in await person.ok("GET", "/runs")}
    assert runs["architect"]["status"] == "completed"
    assert runs["coder"]["status"] == "completed"
    assert runs["coder"]["parent_run_id"] == runs["architect"]["id"]
