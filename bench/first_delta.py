"""The first delta of a turn, on the turn's own stream and on the conversation's event stream.

The web UI renders a reply only from the conversation's event stream (`GET …/events`); the
turn's own stream (`POST /chat` with `Accept: text/event-stream`) is what it rendered from
before, and what API clients still read. Per turn, this measures the time from sending the
`POST /chat` to the arrival of the reply's first text on each (on the event stream: its first
`delta`, or the stored reply if it was done before the stream opened), in two cases, interleaved:

- **open conversation**: the event stream was opened with the conversation (as the web UI
  opens it), before the turn;
- **new chat**: the conversation has no id until the turn's first event (the stored message of
  the person); the event stream is opened then, from the start (`Last-Event-ID: 0`), as the web
  UI does, and its first delta is the reply's text so far.

The server is `_sse_server.py` (the app with a model that streams stamped deltas at once), so
the figures are Parley's own path, not a model's time to its first token: the worst case for a
new chat, whose event stream opens while the reply is being written. The new chat is measured
again with a model that takes `FIRST_TOKEN` seconds to its first token (a real model takes
longer), where the stream is open before the reply starts.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from lib import VENV_BIN, BenchDatabase, ServerProcess, client, create_conversation
from sse import SSEClient, open_sse

DELTAS = 5  # per reply: only the first one is measured, the rest make it a real stream
FIRST_TOKEN = 0.1


def _first(stream: SSEClient, kind: str, since: int = 0) -> int | None:
    return next((t for t, e, _, _ in stream.events[since:] if e == kind), None)


def _first_text(stream: SSEClient, since: int = 0) -> int | None:
    """The reply's first text on an event stream: a delta, or its stored copy (a reply done
    before the stream opened has no live text left; the web UI shows the stored copy)."""
    return next(
        (
            t
            for t, e, _, d in stream.events[since:]
            if e == "delta" or (e == "message" and json.loads(d).get("role") == "assistant")
        ),
        None,
    )


def _stored_reply(stream: SSEClient, since: int) -> bool:
    return any(
        e == "message" and json.loads(d).get("role") == "assistant"
        for _, e, _, d in stream.events[since:]
    )


async def _until_reply(stream: SSEClient, since: int = 0) -> None:
    """Until the stream has brought the stored reply (the turn is over on it)."""
    while not _stored_reply(stream, since):
        await asyncio.wait_for(stream.wait_for("message"), timeout=30)


def _seconds(arrival: int | None, t0: int) -> float:
    if arrival is None:
        raise RuntimeError("a stream brought no reply")
    return (arrival - t0) / 1e9


async def _open_turn(port: int, user: str, watcher: SSEClient, cid: int) -> tuple[float, float]:
    mark = len(watcher.events)
    t0 = time.monotonic_ns()
    body = {"conversation_id": cid, "message": "hello"}
    turn = await open_sse(port, "POST", f"/api/{user}/chat", user, body)
    await asyncio.wait_for(turn.closed, timeout=60)
    await _until_reply(watcher, mark)
    turn.close()
    return _seconds(_first(turn, "delta"), t0), _seconds(_first_text(watcher, mark), t0)


async def _new_chat(port: int, user: str) -> tuple[float, float, float]:
    t0 = time.monotonic_ns()
    turn = await open_sse(port, "POST", f"/api/{user}/chat", user, {"message": "hello"})
    while _first(turn, "message") is None:
        await asyncio.wait_for(turn.wait_for("message"), timeout=30)
    first = next(json.loads(d) for _, e, _, d in turn.events if e == "message")
    path = f"/api/{user}/conversations/{first['conversation_id']}/events"
    events = await open_sse(port, "GET", path, user, headers={"Last-Event-ID": "0"})
    await asyncio.wait_for(turn.closed, timeout=60)
    await _until_reply(events)
    turn.close()
    events.close()
    return (
        _seconds(_first(turn, "delta"), t0),
        _seconds(_first_text(events), t0),
        _seconds(_first(turn, "message"), t0),
    )


async def _measure(port: int, base_url: str, turns: int, *, open_too: bool) -> dict[str, Any]:
    user = "bench-first-delta"
    async with client(base_url) as cl:
        cid = await create_conversation(cl, user)
    watcher = await open_sse(port, "GET", f"/api/{user}/conversations/{cid}/events", user)
    for _ in range(3):  # the first turns of a fresh process run one-time code paths
        await _open_turn(port, user, watcher, cid)
        await _new_chat(port, user)
    out: dict[str, list[float]] = {
        "open_turn": [],
        "open_events": [],
        "new_turn": [],
        "new_events": [],
        "new_message": [],
    }
    for _ in range(turns):
        if open_too:
            own, events = await _open_turn(port, user, watcher, cid)
            out["open_turn"].append(own)
            out["open_events"].append(events)
        own, events, message = await _new_chat(port, user)
        out["new_turn"].append(own)
        out["new_events"].append(events)
        out["new_message"].append(message)
    watcher.close()
    return out


def _server(db: BenchDatabase, name: str, first_token: float) -> ServerProcess:
    env = {"BENCH_DELTAS": str(DELTAS), "BENCH_DELTA_INTERVAL": "0.005"}
    return ServerProcess(
        db,
        name=name,
        command=[str(VENV_BIN / "python"), str(Path(__file__).resolve().parent / "_sse_server.py")],
        env={**env, "BENCH_FIRST_DELAY": str(first_token)},
    )


def measure_first_delta(db: BenchDatabase, quick: bool) -> dict[str, Any]:
    turns = 5 if quick else 200
    server = _server(db, "first-delta", 0.0).start()
    try:
        instant = asyncio.run(_measure(server.port, server.base_url, turns, open_too=True))
    finally:
        server.stop()
    server = _server(db, "first-delta-slow", FIRST_TOKEN).start()
    try:
        slow = asyncio.run(_measure(server.port, server.base_url, turns // 2, open_too=False))
    finally:
        server.stop()
    return {**instant, "slow": slow, "turns": turns}
