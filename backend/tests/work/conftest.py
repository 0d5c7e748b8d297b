"""Work-session fixtures: the real `claude` binary, offline, against a fake Messages API."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from parley.work.cli import bundled_cli
from parley.work.proctree import TAG, tree
from tests.conftest import Server, eventually
from tests.work.fake_anthropic import FakeAnthropic

CLI = bundled_cli()
# The operator's model key in every work test: the fake API sees it, no session ever does.
OPERATOR_KEY = "sk-ant-operator-key-of-the-tests"
needs_cli = pytest.mark.skipif(CLI is None, reason="claude-agent-sdk's bundled CLI is missing")


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic().running() as fake:
        yield fake


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    """The HOME of every `claude` a test starts, one of its own: Claude Code's Bash sources
    the home's shell start-up files, and a developer's (pyenv's rehash, with a lock a killed
    shell can leave behind) would make every command of these tests wait on the machine
    rather than on Parley."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture
def claude_env(
    fake_api: FakeAnthropic, tmp_path: Path, claude_home: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """The server's environment and settings for work sessions: the fake API is the model
    relay's upstream, "x" the operator's key (only the relay ever holds it), and the data
    directory (every person's Claude Code home) is the test's own."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", OPERATOR_KEY)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.setenv("HOME", str(claude_home))
    return {
        "PARLEY_WORK_ENABLED": True,
        "PARLEY_WORKSPACE_ROOT": tmp_path / "workspaces",
        "PARLEY_DATA_DIR": tmp_path / "data",
        "ANTHROPIC_API_KEY": OPERATOR_KEY,
    }


@pytest.fixture
def work_server(make_server: Callable[..., Any], claude_env: dict[str, Any]) -> Callable[..., Any]:
    """`async with work_server(PARLEY_WORK_IDLE_TIMEOUT=2) as s:` a server with work mode on."""

    def factory(**overrides: Any) -> Any:
        return make_server(**(claude_env | overrides))

    return factory


async def new_work(server: Server, user: str) -> int:
    response = await server.client.post(
        f"/api/{user}/conversations", json={"mode": "work"}, headers=server.headers(user)
    )
    assert response.status_code == 201, response.text
    conversation_id: int = response.json()["id"]
    return conversation_id


async def send(
    server: Server, user: str, conversation_id: int, text: str, reply_to: int | None = None
) -> httpx.Response:
    return await server.client.post(
        f"/api/{user}/conversations/{conversation_id}/messages",
        json={"text": text, "reply_to": reply_to},
        headers=server.headers(user),
    )


async def messages(server: Server, user: str, conversation_id: int) -> list[dict[str, Any]]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/messages",
        params={"limit": 200},
        headers=server.headers(user),
    )
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


async def work_state(server: Server, user: str, conversation_id: int) -> dict[str, Any]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/work", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


async def wait_for_message(
    server: Server,
    user: str,
    conversation_id: int,
    check: Callable[[dict[str, Any]], bool],
    within: float = 30.0,
) -> dict[str, Any]:
    found: list[dict[str, Any]] = []

    async def seen() -> bool:
        found[:] = [m for m in await messages(server, user, conversation_id) if check(m)]
        return bool(found)

    await eventually(seen, within=within)
    return found[0]


async def reply_under_way(server: Server, conversation_id: int, *, more_than: int = 0) -> None:
    """Until more than `more_than` characters of the reply being written are out (the
    server's hub keeps its text so far for whoever joins mid-reply)."""

    async def out() -> bool:
        return len(server.app.services.hub.text_so_far(conversation_id)) > more_than

    await eventually(out, within=30)


def of_type(message: dict[str, Any]) -> str | None:
    """The `meta.type` of a work session's message (text, tool_use, result...)."""
    kind: str | None = (message["meta"] or {}).get("type")
    return kind


def is_result(message: dict[str, Any]) -> bool:
    return of_type(message) == "result"


# How long a prompt may take to reach its result: Claude Code's Bash tool alone took a minute
# on a loaded two-core machine. A bound, not a sleep: a fast run returns at once.
RESULT_WITHIN = 150.0


def is_question(message: dict[str, Any]) -> bool:
    return message["kind"] == "question"


def result_after(message_id: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["id"] > message_id and is_result(m)


async def asked(server: Server, text: str, *, user: str = "ann") -> tuple[int, dict[str, Any]]:
    """A new work conversation given the prompt `text`, up to the permission question its
    first tool call asks: the conversation and the question."""
    conversation = await new_work(server, user)
    sent = await send(server, user, conversation, text)
    assert sent.status_code == 201, sent.text
    question = await wait_for_message(server, user, conversation, is_question, within=RESULT_WITHIN)
    return conversation, question


async def parked_on(server: Server, user: str, conversation: int, question_id: int) -> None:
    """Until the session has parked its call on the question (its process gone, the call
    kept in PostgreSQL for the answer)."""

    async def parked() -> bool:
        state = await work_state(server, user, conversation)
        return bool(state["pending_question_id"] == question_id)

    await eventually(parked, within=RESULT_WITHIN)


async def result_of(
    server: Server, conversation: int, sent: httpx.Response, *, user: str = "ann"
) -> dict[str, Any]:
    """The result that follows the stored answer or prompt `sent`."""
    assert sent.status_code == 201, sent.text
    return await wait_for_message(
        server, user, conversation, result_after(sent.json()["id"]), within=RESULT_WITHIN
    )


def claude_processes(pid: int) -> list[int]:
    return [p.pid for p in tree(pid)]


def tagged_alive(tags: set[str]) -> set[str]:
    """Which of these session tags a live process (not a zombie) still carries: what a
    session's process and everything it started have in their environment."""
    found = set()
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            tag = proc.environ().get(TAG)
            if tag in tags and proc.status() != psutil.STATUS_ZOMBIE:
                found.add(tag)
    return found


def unanswered(found: list[dict[str, Any]]) -> list[int]:
    """The person's prompts among these messages that no closing message answers: none of
    the results or errors names them (`meta.prompts`)."""
    closed = {
        prompt
        for m in found
        if m["kind"] == "output" and of_type(m) in ("result", "error")
        for prompt in (m["meta"] or {}).get("prompts", [])
    }
    return [
        m["id"]
        for m in found
        if m["role"] == "user" and m["kind"] == "message" and m["id"] not in closed
    ]
