"""Ending a work session, attacked: End and prompts raced on two instances of one database.

Every prompt sent around End (before the process is gone, with it, right after, through the
instance that does not hold the session) is answered or told why, never stored and dropped;
two sessions of one conversation never run at once; End leaves no process behind; only the
person ends their session."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
from typing import Any

import httpx
import psutil
import pytest

from parley.db import Database
from parley.work.proctree import TAG
from parley.work.session import session_tag
from tests.conftest import Server, eventually, token_for
from tests.work import conftest as work
from tests.work.conftest import (
    RESULT_WITHIN,
    messages,
    needs_cli,
    new_work,
    of_type,
    send,
    tagged_alive,
    unanswered,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, echo

# The work tests' fixtures: the real `claude` CLI against the fake Messages API.
claude_home, claude_env, fake_api, work_server = (
    work.claude_home,
    work.claude_env,
    work.fake_api,
    work.work_server,
)

pytestmark = [needs_cli, pytest.mark.slow, pytest.mark.timeout(400)]  # rounds of new sessions

PROMPT = r"p\d\d"


class Sessions:
    """Samples, on a thread, which sessions of these instances have live processes (by the
    tag each session's processes carry): how many ran at once, at most."""

    def __init__(self, instances: set[str]) -> None:
        self.prefixes = tuple(f"{instance}/" for instance in instances)
        self.most = 0
        self.seen: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            live = set()
            for proc in psutil.process_iter():
                with contextlib.suppress(psutil.Error):
                    tag = proc.environ().get(TAG, "")
                    if tag.startswith(self.prefixes) and proc.status() != psutil.STATUS_ZOMBIE:
                        live.add(tag)
            self.seen |= live
            self.most = max(self.most, len(live))
            self._stop.wait(0.02)

    def __enter__(self) -> Sessions:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


async def end(
    server: Server, conversation: int, user: str = "ann", **headers: str
) -> httpx.Response:
    return await server.client.post(
        f"/api/{user}/conversations/{conversation}/work/end",
        headers=headers or server.headers(user),
    )


async def runs(db: Database, conversation: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, status, instance, started_at, ended_at FROM agent_runs"
            " WHERE conversation_id = $1 ORDER BY id",
            conversation,
        )
    return [dict(row) for row in rows]


async def working(server: Server, conversation: int, prompt: asyncio.Task[httpx.Response]) -> None:
    """Until the session is working on `prompt` (a chat still waiting for its answer)."""

    async def now() -> bool:
        if prompt.done():  # answered or failed before End: say how
            raise AssertionError(f"the slow prompt finished first: {prompt.result().text}")
        return (await work_state(server, "ann", conversation))["status"] == "working"

    await eventually(now, within=RESULT_WITHIN)


async def answered(server: Server, conversation: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    async def all_closed() -> bool:
        found[:] = await messages(server, "ann", conversation)
        return not unanswered(found)

    await eventually(all_closed, within=RESULT_WITHIN)
    return found


def closing(found: list[dict[str, Any]], prompt_id: int) -> list[dict[str, Any]]:
    """The results and errors that name this prompt."""
    return [
        m
        for m in found
        if of_type(m) in ("result", "error") and prompt_id in (m["meta"] or {}).get("prompts", [])
    ]


def by_name(found: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (prompt,) = [m for m in found if m["role"] == "user" and m["content"].startswith(name)]
    return prompt


async def test_twenty_prompts_around_end_on_two_instances_are_each_answered_or_told_why(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    # A reply that says "slowly" streams for half a minute: End comes while it is under way.
    fake_api.default = echo(PROMPT, slow="slowly", chunks=60, delay=0.5)
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        instances = {a.app.services.work.instance, b.app.services.work.instance}
        names = iter(f"p{i:02}" for i in range(20))
        cut: list[str] = []  # End came while they were being answered
        later: list[str] = []  # sent after End answered: the next session answers them
        chats: dict[str, httpx.Response] = {}

        async def chat(server: Server, name: str, text: str) -> httpx.Response:
            chats[name] = await server.chat("ann", f"{name} {text}", conversation)
            return chats[name]

        with Sessions(instances) as sessions:
            for ender, other in ((a, b), (b, a), (a, b), (b, a)):
                slow = next(names)
                cut.append(slow)
                under_way = asyncio.create_task(chat(other, slow, "answer slowly"))
                await working(a, conversation, under_way)
                first, second = next(names), next(names)
                ended, *_ = await asyncio.gather(
                    end(ender, conversation),
                    send(ender, "ann", conversation, f"{first} racing End"),
                    chat(other, second, "racing End"),
                )
                assert ended.status_code == 200 and ended.json() == {"ended": True}, ended.text
                # Right after End answered (the old tree may still be on its way out).
                third, fourth = next(names), next(names)
                later += [third, fourth]
                await asyncio.gather(
                    chat(ender, third, "after End"),
                    send(other, "ann", conversation, f"{fourth} after End"),
                )
                await under_way
                await answered(a, conversation)
            final = await end(a, conversation)
            assert final.json() == {"ended": True}
            found = await answered(b, conversation)
            tags = {session_tag(r["instance"], r["id"]) for r in await runs(db, conversation)}

            async def all_gone() -> bool:
                return not await asyncio.to_thread(tagged_alive, tags)

            await eventually(all_gone, within=30)

    prompts = [m for m in found if m["role"] == "user"]
    assert sorted(m["content"][:3] for m in prompts) == [f"p{i:02}" for i in range(20)]
    texts = {m["content"] for m in found if of_type(m) == "text"}
    for prompt in prompts:
        name = prompt["content"][:3]
        [closed] = closing(found, prompt["id"])  # exactly one answer or error each
        if name in cut:
            assert closed["content"].startswith("Ended before answering"), closed
        elif name in later:
            assert of_type(closed) == "result" and f"echo {name}" in texts, closed
        else:  # raced End: answered by the next session, or cut and told so
            assert of_type(closed) == "result" or closed["content"].startswith("Ended before")
        reply = chats.get(name)
        if reply is not None:  # the JSON caller got the same outcome, whichever instance
            if of_type(closed) == "result":
                assert reply.status_code == 200 and reply.json()["response"] == f"echo {name}"
            else:
                assert reply.status_code == 502, reply.text
                assert reply.json()["error"] == {
                    "code": "work_failed",
                    "message": closed["content"],
                    "conversation_id": conversation,
                }
    # One session at a time: by the runs' record and by the processes seen.
    history = await runs(db, conversation)
    assert len(history) >= 5 and all(r["status"] == "completed" for r in history)
    for before, after in itertools.pairwise(history):
        assert after["started_at"] >= before["ended_at"]
    assert len(sessions.seen) >= 5 and sessions.most == 1


async def test_a_burst_of_ends_and_prompts_on_both_instances_leaves_nothing_unanswered(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "p00 hello", conversation)).status_code == 200
        burst = await asyncio.gather(
            *(end((a, b)[i % 2], conversation) for i in range(10)),
            *(send((b, a)[i % 2], "ann", conversation, f"p{i:02} in the burst") for i in (1, 2, 3)),
        )
        ends, sent = burst[:10], burst[10:]
        assert all(r.status_code == 200 and "ended" in r.json() for r in ends), burst
        assert any(r.json()["ended"] for r in ends)
        assert [r.status_code for r in sent] == [201] * 3
        found = await answered(a, conversation)
        assert all(len(closing(found, m["id"])) == 1 for m in found if m["role"] == "user")
        async with db.connection() as conn:
            live = await conn.fetchval(
                "SELECT count(*) FROM agent_runs WHERE conversation_id = $1"
                " AND status IN ('running', 'waiting_input')",
                conversation,
            )
        assert live <= 1
        assert (await end(b, conversation)).status_code == 200
        tags = {session_tag(r["instance"], r["id"]) for r in await runs(db, conversation)}

        async def all_gone() -> bool:
            return not await asyncio.to_thread(tagged_alive, tags)

        await eventually(all_gone, within=30)
        assert (await work_state(a, "ann", conversation))["status"] == "ended"


async def test_only_the_person_ends_their_session(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "p00 hello", conversation)).status_code == 200
        (run,) = await runs(db, conversation)
        tag = session_tag(run["instance"], run["id"])
        mallory = {"Authorization": f"Bearer {token_for('mallory')}"}
        agent = {"Authorization": f"Bearer {token_for('ann', agent='helper')}"}
        for server in (a, b):
            # Another person: her own path finds no such conversation; ann's path is not hers.
            assert (await end(server, conversation, "mallory", **mallory)).status_code == 404
            assert (await end(server, conversation, "ann", **mallory)).status_code == 403
            # The person's agent acts for her, never as her: End is hers (as over MCP).
            refused = await end(server, conversation, "ann", **agent)
            assert refused.status_code == 403, refused.text
            assert refused.json()["error"]["code"] == "agent_not_allowed"
        assert [r["status"] for r in await runs(db, conversation)] == ["running"]
        assert await asyncio.to_thread(tagged_alive, {tag}) == {tag}
        assert (await work_state(a, "ann", conversation))["status"] == "idle"
