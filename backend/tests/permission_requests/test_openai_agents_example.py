"""examples/openai_agents_approval.py as a person would run it: an OpenAI Agents SDK run whose
`needs_approval` tool waits for the person's decision through Parley, resumed with
`RunState.approve` / `reject`, also by a new process after the first one was killed."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import Any

from parley.db import Database
from tests.conftest import spawn_server, token_for
from tests.permission_requests.helpers import questions
from tests.runs.test_agent_processes import AgentProcess, Person


async def _start(base: str, state: Path, *prompt: str) -> AgentProcess:
    token = token_for("alice", agent="janitor")
    args = ("--url", base, "--user", "alice", "--token", token, "--state", str(state))
    return await AgentProcess.start("openai_agents_approval.py", *args, "--offline", *prompt)


async def _task(person: Person, title: str) -> int:
    made: dict[str, Any] = await person.ok("POST", "/tasks", json={"title": title})
    return int(made.get("number", made.get("task_id", 0)))


async def _titles(person: Person) -> list[str]:
    found = await person.ok("GET", "/tasks")
    found = found["tasks"] if isinstance(found, dict) else found
    return [t["title"] for t in found]


async def test_the_run_waits_for_the_person_and_goes_on_with_their_decision(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    _server, base = await spawn_server(migrated)
    person = Person(base)
    keep, drop = await _task(person, "keep me"), await _task(person, "drop me")

    agent = await _start(base, tmp_path / "a.json", f"delete task {drop}")
    waiting = await agent.step("waiting")
    assert waiting["tool"] == "delete_task"
    assert sorted(await _titles(person)) == ["drop me", "keep me"]  # nothing ran before a yes
    [question] = await questions(db)
    assert question["meta"]["permission"]["input"] == {"task_number": drop}
    allow = {"decision": "allow"}
    await person.ok("POST", f"/questions/{waiting['request_id']}/answer", json=allow)
    assert (await agent.step("decided"))["decision"] == "allow"
    assert f"Deleted task {drop}" in (await agent.step("finished"))["output"]
    assert await _titles(person) == ["keep me"]

    refused = await _start(base, tmp_path / "b.json", f"delete task {keep}")
    asked = await refused.step("waiting")
    answer = {"text": "no, I still need that one"}
    await person.ok("POST", f"/questions/{asked['request_id']}/answer", json=answer)
    assert (await refused.step("decided"))["decision"] == "deny"
    # The person's words are what the model is told instead of the tool's result.
    assert "I still need that one" in (await refused.step("finished"))["output"]
    assert await _titles(person) == ["keep me"]
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()


async def test_a_new_process_resumes_the_paused_run_without_asking_again(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    _server, base = await spawn_server(migrated)
    person = Person(base)
    number = await _task(person, "old notes")
    state = tmp_path / "run.json"

    first = await _start(base, state, f"delete task {number}")
    asked = await first.step("waiting")
    assert state.exists()  # the paused run is on disk before the wait
    with contextlib.suppress(ProcessLookupError):
        os.killpg(first.process.pid, signal.SIGKILL)
    await first.process.wait()

    second = await _start(base, state)  # no prompt: it picks the run up from the file
    await second.step("resumed")
    again = await second.step("waiting")
    assert again["request_id"] == asked["request_id"]  # the same question, not a second one
    assert len(await questions(db)) == 1
    await person.ok("POST", f"/questions/{asked['request_id']}/answer", json={"decision": "allow"})
    assert f"Deleted task {number}" in (await second.step("finished"))["output"]
    assert await _titles(person) == []
    assert not state.exists()
