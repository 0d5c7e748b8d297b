"""Agents waiting for people: the delay from a person's answer to the waiting agent's return,
with many agents waiting at once, on one instance and across two; memory per waiting agent.

Each agent (its own user and agent token) asks a question in its person's inbox, then
long-polls `GET /api/{user}/questions/{id}?wait=55` on instance A over its own keep-alive
connection. With all of them waiting, the people answer one at a time (`reply_to` = the
question), through A or through another instance B. Delay = from sending the answer to the
agent reading its answer (so it includes storing the answer, the NOTIFY, the wake and the
agent's HTTP response). Run alone: `.venv/bin/python bench/questions.py [--agents N]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import httpx

from lib import (
    BenchDatabase,
    LeanClient,
    Pair,
    ServerProcess,
    auth,
    ms,
    pct,
    run_alone,
    server_pair,
)

SECRET_USER_PREFIX = "bench-q"


async def _ask(base_url: str, users: list[str]) -> list[tuple[str, int, int]]:
    """Each user's agent asks one question; returns (user, question id, inbox id)."""
    asked: list[tuple[str, int, int]] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        for start in range(0, len(users), 50):
            batch = users[start : start + 50]
            responses = await asyncio.gather(
                *(
                    http.post(
                        f"/api/{u}/inbox/messages",
                        json={"text": "Go ahead?", "kind": "question"},
                        headers=auth(u, "bench-agent"),
                    )
                    for u in batch
                )
            )
            for user, response in zip(batch, responses, strict=True):
                response.raise_for_status()
                body = response.json()
                asked.append((user, body["id"], body["conversation_id"]))
    return asked


async def measure(
    waits_on: ServerProcess, answers_on: ServerProcess, *, agents: int, tag: str
) -> dict[str, Any]:
    users = [f"{SECRET_USER_PREFIX}-{tag}-{i}" for i in range(agents)]
    asked = await _ask(waits_on.base_url, users)
    clients = [LeanClient(waits_on.base_url) for _ in asked]
    for start in range(0, len(clients), 100):
        await asyncio.gather(*(c.__aenter__() for c in clients[start : start + 100]))
    rss_before = waits_on.rss()
    returned: dict[int, tuple[float, dict[str, Any]]] = {}
    arrived = {q: asyncio.Event() for (_u, q, _i) in asked}

    async def wait(client: LeanClient, user: str, question: int) -> None:
        headers = auth(user, "bench-agent")
        status, body = await client.get(f"/api/{user}/questions/{question}?wait=55", headers)
        returned[question] = (time.perf_counter(), {"status": status, **json.loads(body)})
        arrived[question].set()

    waiting = [
        asyncio.create_task(wait(c, u, q)) for c, (u, q, _i) in zip(clients, asked, strict=True)
    ]
    await asyncio.sleep(0.5 if agents <= 50 else 3.0)  # every long-poll is in and parked
    rss_waiting = waits_on.rss()
    early = len(returned)
    delays: list[float] = []
    answer_latency: list[float] = []
    async with LeanClient(answers_on.base_url) as person:
        for user, question, inbox in asked:
            body = json.dumps({"text": "yes", "reply_to": question}).encode()
            headers = auth(user)
            sent = time.perf_counter()
            status, _ = await person.post_json(
                f"/api/{user}/conversations/{inbox}/messages", body, headers
            )
            answer_latency.append(time.perf_counter() - sent)
            assert status == 201, status
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived[question].wait(), 10)
            if question in returned:
                delays.append(returned[question][0] - sent)
    await asyncio.wait(waiting, timeout=15)
    for c in clients:
        await c.__aexit__()
    right = sum(
        1
        for (_u, q, _i) in asked
        if q in returned
        and returned[q][1].get("answer", {})
        and returned[q][1]["status"] == "answered"
    )
    return {
        "agents": agents,
        "delays": delays,
        "answer_latency": answer_latency,
        "early": early,
        "answered": right,
        "rss_per_wait": (rss_waiting - rss_before) / agents,
    }


def measure_questions(db: BenchDatabase, quick: bool, pair: Pair | None = None) -> dict[str, Any]:
    """Both rounds on two fresh `parley serve` instances (or `pair`, in the smoke run):
    answers through A, then through B."""
    agents = 20 if quick else 500
    with server_pair(db, "questions", reuse=pair) as (a, b):
        same = asyncio.run(measure(a, a, agents=agents, tag="same"))
        cross = asyncio.run(measure(a, b, agents=agents, tag="cross"))
    return {"agents": agents, "same": same, "cross": cross}


def show(found: dict[str, Any]) -> None:
    for name in ("same", "cross"):
        r = found[name]
        print(
            f"{name}: {r['answered']}/{r['agents']} answered, p50 {ms(pct(r['delays'], 50))},"
            f" p99 {ms(pct(r['delays'], 99))}, {r['rss_per_wait'] / 1024:.1f} KiB per wait"
        )


if __name__ == "__main__":
    raise SystemExit(run_alone(__doc__, measure_questions, show))
