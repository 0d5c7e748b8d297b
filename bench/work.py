"""Work sessions: delay from a `claude` stdout line to the SSE client, Parley's memory per
live session, and how long End takes. The real bundled `claude` CLI, offline, against the
tests' fake Messages API.

    .venv/bin/python bench/work.py           # prints the figures (a few minutes)
    .venv/bin/python bench/work.py --quick   # fewer deltas, sessions and Ends
    .venv/bin/python bench/work.py --only end

On uvloop, as `parley serve` runs: how a child's exit is collected differs between event
loops (End took 6 s on uvloop only, while the wait in the tree's kill collected the exit
uvloop was waiting for).

The app runs in this process (uvicorn on 127.0.0.1, as the tests serve it) so that the moment
Parley's transport hands on a parsed stdout line and the moment the SSE client reads the event
share one clock (`time.monotonic`). The client is a raw-socket SSE reader on the same event
loop: its own cost is part of the figure, which therefore overstates the server's share a
little. Memory: Python heap still allocated (tracemalloc) after N idle sessions have started,
minus before, divided by N: Parley's side only (the CLI's own memory is its process's).
End: two instances (apps A and B in this process, on one database); a session started on A
(one answered prompt), then `POST .../work/end` through A, or through B; timed from the
request to its answer (goal: p99 <= 1 s), to `GET .../work` through the other instance
saying `ended` (its first answer always does: the End is recorded before End answers; the
time is that GET's, which here shares a process, and its GIL, with A's cleaning up), and to
the session's last process being gone (its group gets SIGKILL before End answers, the rest
of its tree right after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

import httpx  # noqa: E402
import uvloop  # noqa: E402
from parley.api.app import create_app  # noqa: E402
from parley.auth import mint_token  # noqa: E402
from parley.config import Settings  # noqa: E402
from parley.db import EmbeddedPostgres  # noqa: E402
from parley.migrate import upgrade  # noqa: E402
from parley.work.session import session_tag  # noqa: E402
from parley.work.transport import ProcessTransport  # noqa: E402
from tests.conftest import free_port, on_loopback  # noqa: E402
from tests.work.conftest import tagged_alive  # noqa: E402
from tests.work.fake_anthropic import FakeAnthropic, say  # noqa: E402

SECRET = "bench-secret-" + "x" * 32
SECTIONS = ("deltas", "memory", "end")
LINE_SEEN: dict[str, float] = {}


def stamp_stdout_lines() -> None:
    """Record when each text delta's stdout line reaches Parley through its transport."""
    original = ProcessTransport.read_messages

    async def read_messages(self: Any) -> Any:
        async for data in original(self):
            event = data.get("event") if isinstance(data, dict) else None
            if isinstance(event, dict) and event.get("type") == "content_block_delta":
                LINE_SEEN[event.get("delta", {}).get("text", "")] = time.monotonic()
            yield data

    ProcessTransport.read_messages = read_messages  # type: ignore[method-assign]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def read_deltas(port: int, path: str, token: str, body: bytes, count: int) -> list[float]:
    """A minimal SSE reader: the arrival time of each `delta` event, by its text."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Accept: text/event-stream\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    delays: list[float] = []
    event = ""
    while len(delays) < count:
        line = (await reader.readline()).decode()
        if not line:
            break
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "delta":
            now = time.monotonic()
            text = line[5:].strip()
            chunk = json.loads(text)["text"]
            if chunk in LINE_SEEN:
                delays.append(now - LINE_SEEN[chunk])
        elif line.startswith("event: done"):
            break
    writer.close()
    return delays


async def main(quick: bool, only: set[str]) -> None:
    logging.getLogger().setLevel(logging.WARNING)
    stamp_stdout_lines()
    tmp = Path(tempfile.mkdtemp(prefix="parley-bench-work-"))
    embedded = EmbeddedPostgres(tmp / "pg")
    url = await asyncio.to_thread(embedded.start)
    await asyncio.to_thread(upgrade, url)
    fake = FakeAnthropic()
    deltas = 200 if quick else 1000
    sessions = 3 if quick else 8
    ends = 4 if quick else 12
    try:
        with fake.running():
            os.environ.update(
                ANTHROPIC_BASE_URL=fake.url,
                ANTHROPIC_API_KEY="x",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            )
            settings = Settings(
                PARLEY_AUTH_SECRET=SECRET,
                PARLEY_WORK_ENABLED=True,
                PARLEY_WORKSPACE_ROOT=tmp / "workspaces",
                PARLEY_DATA_DIR=tmp / "data",
                PARLEY_WORK_MAX_SESSIONS=sessions + 1,
                PARLEY_RATE_LIMIT_PER_MINUTE=0,
                ANTHROPIC_API_KEY="x",
            )
            app = create_app(settings, database_url=url)
            port = free_port()
            async with on_loopback(app, port):
                if only & {"deltas", "memory"}:
                    await run_figures(port, fake, deltas=deltas, sessions=sessions, only=only)
                if "end" in only:
                    other = create_app(settings, database_url=url)
                    other_port = free_port()
                    async with on_loopback(other, other_port):
                        owner = app.services.work.instance
                        await end_figures(port, other_port, fake, tries=ends, owner=owner)
    finally:
        await asyncio.to_thread(embedded.stop)
        shutil.rmtree(tmp, ignore_errors=True)


async def run_figures(
    port: int, fake: FakeAnthropic, *, deltas: int, sessions: int, only: set[str]
) -> None:
    token = mint_token(secret=SECRET, user_id="bench-work", ttl_seconds=3600)
    headers = {"Authorization": f"Bearer {token}"}

    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=120
    ) as http:

        async def new_session() -> int:
            created = await http.post("/api/bench-work/conversations", json={"mode": "work"})
            conversation: int = created.json()["id"]
            fake.script(say("ready"))
            reply = await http.post(
                "/api/bench-work/chat", json={"conversation_id": conversation, "message": "hi"}
            )
            assert reply.status_code == 200, reply.text
            return conversation

        if "deltas" in only:
            conversation = await new_session()
            # One reply of `deltas` unique chunks, 5 ms apart (a fast model's pace).
            text = "".join(f"w{i:05d} " for i in range(deltas))
            fake.script(say(text, chunks=deltas, delay=0.005))
            body = json.dumps({"conversation_id": conversation, "message": "go"}).encode()
            delays = await read_deltas(port, "/api/bench-work/chat", token, body, deltas)
            print(f"stdout line -> SSE client: {len(delays)} deltas")
            print(
                f"  p50 {statistics.median(delays) * 1000:.2f} ms,"
                f" p99 {pct(delays, 0.99) * 1000:.2f} ms,"
                f" max {max(delays) * 1000:.2f} ms (goal: p99 <= 50 ms)"
            )

        if "memory" in only:
            tracemalloc.start()
            await asyncio.sleep(0.5)
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(sessions):
                await new_session()
            await asyncio.sleep(0.5)
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            per = (after - before) / sessions
            print(
                f"Parley's memory per live session: {per / 1024:.0f} KiB ({sessions} idle sessions)"
            )


async def end_figures(
    port_a: int, port_b: int, fake: FakeAnthropic, *, tries: int, owner: str
) -> None:
    """End `tries` sessions living on A through A, then as many through B (one each)."""
    user = "bench-end"
    token = mint_token(secret=SECRET, user_id=user, ttl_seconds=3600)
    headers = {"Authorization": f"Bearer {token}"}
    fake.default = say("ready")
    async with (
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port_a}", headers=headers) as a,
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port_b}", headers=headers) as b,
    ):
        for label, ender, watcher in (("through A (the owner)", a, b), ("through B", b, a)):
            answered, shown, gone = [], [], []
            for _ in range(tries):
                created = await a.post(f"/api/{user}/conversations", json={"mode": "work"})
                conversation = created.json()["id"]
                reply = await a.post(
                    f"/api/{user}/chat", json={"conversation_id": conversation, "message": "hi"}
                )
                assert reply.status_code == 200, reply.text
                path = f"/api/{user}/conversations/{conversation}/work"
                tag = session_tag(owner, (await a.get(path)).json()["run_id"])
                started = time.monotonic()
                ended = await ender.post(f"{path}/end")
                answered.append(time.monotonic() - started)
                assert ended.json() == {"ended": True}, ended.text
                shown.append(await until(shows_ended, watcher, path) - started)
                gone.append(await until(no_process, tag) - started)
            print(f"End {label}: {tries} sessions")
            for name, values in (
                ("End answered", answered),
                ("the other instance shows it ended", shown),
                ("its last process gone", gone),
            ):
                goal = " (goal: p99 <= 1000 ms)" if name == "End answered" else ""
                print(
                    f"  {name}: p50 {statistics.median(values) * 1000:.0f} ms,"
                    f" p99 {pct(values, 0.99) * 1000:.0f} ms,"
                    f" max {max(values) * 1000:.0f} ms{goal}"
                )


async def until(check: Any, *args: Any) -> float:
    """When `check(*args)` first holds (polled every 5 ms)."""
    while True:
        if await check(*args):
            return time.monotonic()
        await asyncio.sleep(0.005)


async def shows_ended(client: httpx.AsyncClient, path: str) -> bool:
    return bool((await client.get(path)).json()["status"] == "ended")


async def no_process(tag: str) -> bool:
    return not await asyncio.to_thread(tagged_alive, {tag})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    args = parser.parse_args()
    uvloop.run(main(args.quick, set(args.only)))
