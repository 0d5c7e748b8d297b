"""SIGTERM to a real `parley serve` with turns in flight: a streamed turn that can finish in
the grace period finishes (its stream ends with `done`); one that cannot is stopped, its
reply so far stored and sent, and its stream ends with an `error` saying to reconnect. A
JSON turn gets its 200. Either way nothing is half-stored and the conversation is free."""

from __future__ import annotations

import asyncio
import signal
import time

import httpx
import pytest

from tests.conftest import eventually, spawn_server
from tests.fault.helpers import auth, messages
from tests.realtime.sse import events

pytestmark = pytest.mark.timeout(120)
USER = "sam"


async def _stream_turn(base: str, text: str, started: asyncio.Event) -> list[tuple[str, dict]]:
    seen: list[tuple[str, dict]] = []
    headers = {**auth(USER), "Accept": "text/event-stream"}
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client,
        client.stream("POST", f"/api/{USER}/chat", json={"message": text}) as response,
    ):
        async for event in events(response):
            seen.append((event.event, event.json()))
            started.set()
    return seen


async def _claims(db) -> list[str | None]:
    async with db.connection() as conn:
        return [r[0] for r in await conn.fetch("SELECT turn_id FROM conversations")]


async def test_sigterm_lets_streamed_and_json_turns_finish_within_the_grace(migrated, db):
    process, base = await spawn_server(migrated, PARLEY_MODEL_DELAY="1", PARLEY_SHUTDOWN_GRACE="20")
    started = asyncio.Event()
    streamed = asyncio.create_task(_stream_turn(base, "add a task to finish streaming", started))
    async with httpx.AsyncClient(base_url=base, headers=auth(USER), timeout=60) as client:
        plain = asyncio.create_task(
            client.post(f"/api/{USER}/chat", json={"message": "add a task to finish plainly"})
        )
        await asyncio.wait_for(started.wait(), timeout=10)

        async def both_started() -> bool:  # the JSON turn has its conversation too
            return len(await _claims(db)) == 2

        await eventually(both_started)
        process.send_signal(signal.SIGTERM)
        seen = await asyncio.wait_for(streamed, timeout=30)
        answered = await asyncio.wait_for(plain, timeout=30)
    assert await asyncio.wait_for(process.wait(), timeout=30) == 0
    assert [e for e, _ in seen][-2:] == ["message", "done"], seen
    assert "finish streaming" in seen[-1][1]["response"]
    assert answered.status_code == 200, answered.text
    for conversation_id in (seen[0][1]["conversation_id"], answered.json()["conversation_id"]):
        stored = await messages(db, conversation_id)
        assert [m["role"] for m in stored] == ["user", "assistant"]
        assert not stored[1]["error"]
    assert await _claims(db) == [None, None]


async def test_a_streamed_turn_past_the_grace_is_stopped_stored_and_told_to_reconnect(migrated, db):
    process, base = await spawn_server(migrated, PARLEY_MODEL_DELAY="60", PARLEY_SHUTDOWN_GRACE="5")
    started = asyncio.Event()
    streamed = asyncio.create_task(_stream_turn(base, "add a task to never finish", started))
    await asyncio.wait_for(started.wait(), timeout=10)
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    seen = await asyncio.wait_for(streamed, timeout=30)
    assert await asyncio.wait_for(process.wait(), timeout=30) == 0
    assert time.monotonic() - signalled < 5 + 5
    kinds = [e for e, _ in seen]
    assert kinds[0] == "message" and kinds[-2:] == ["message", "error"], seen
    error = seen[-1][1]["error"]
    assert error["code"] == "server_restarting" and "reconnect" in error["message"].lower()
    reply = seen[-2][1]
    assert reply["role"] == "assistant" and reply["meta"].get("stopped") is True
    stored = await messages(db, reply["conversation_id"])
    assert [m["id"] for m in stored] == [seen[0][1]["id"], reply["id"]]  # all that was sent
    assert await _claims(db) == [None]  # the conversation is free for the next turn
