"""The turn's cost by credential: a person's chat turn authenticated by a `parley token` JWT or
by the web session cookie, and an agent's write by an agent JWT or an agent key (a key cannot
start a chat turn: that is the person's). Each credential is one indexed query, then a cached
answer for ≤ 0.5 s (parley.accounts.credentials), so the figures should match."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import uvloop

from lib import BenchDatabase, LeanClient, ServerProcess, auth, client, create_conversation, ms

ORIGIN = "http://127.0.0.1:3000"  # the web UI's origin, which cookie-authenticated POSTs need


async def _headers(base_url: str, user: str, kind: str) -> dict[str, str]:
    """The person's or agent's credential of `kind` as request headers."""
    async with client(base_url) as cl:
        if kind == "cookie":
            r = await cl.post("/api/auth/dev-login", json={"user_id": user})
            r.raise_for_status()
            return {"Cookie": f"parley_session={r.cookies['parley_session']}", "Origin": ORIGIN}
        if kind == "agent key":
            r = await cl.post(
                f"/api/{user}/agent-keys", json={"agent": "bench"}, headers=auth(user)
            )
            r.raise_for_status()
            return {"Authorization": f"Bearer {r.json()['secret']}"}
        if kind == "agent JWT":
            return auth(user, agent="bench")
        return auth(user)


async def _paired(
    base_url: str, *, user: str, kinds: tuple[str, str], message: str, turns: int
) -> dict[str, float]:
    """p50 latency at concurrency 1 through the lean client of the same request alternating
    between two credentials of one caller (so the machine's drift hits both alike): a chat
    turn for the person's credentials, an inbox message for the agent's."""
    headers = {kind: await _headers(base_url, user, kind) for kind in kinds}
    async with client(base_url) as cl:
        cid = await create_conversation(cl, user)
    agent = kinds[0].startswith("agent")
    path = f"/api/{user}/inbox/messages" if agent else f"/api/{user}/chat"
    expected = 201 if agent else 200
    latencies: dict[str, list[float]] = {kind: [] for kind in kinds}
    async with LeanClient(base_url) as lc:
        for i in range(2 * (turns + 10)):
            kind = kinds[i % 2]
            body = (
                {"text": f"{message} {i}"}
                if agent
                else {"conversation_id": cid, "message": message}
            )
            t0 = time.perf_counter()
            status, content = await lc.post_json(path, json.dumps(body).encode(), headers[kind])
            elapsed = time.perf_counter() - t0
            if status != expected:
                raise RuntimeError(f"{kind}: {status} {content[:300]!r}")
            if i >= 20:  # warm-up first
                latencies[kind].append(elapsed)
    return {kind: statistics.median(values) for kind, values in latencies.items()}


def credential_costs(
    db: BenchDatabase, message: str, *, quick: bool, progress: Callable[[str], None]
) -> list[dict[str, Any]]:
    """Interleaved rounds (the machine drifts): the floor, then each pair of credentials."""
    from floor import measure_floor

    turns = 30 if quick else 150
    server = ServerProcess(db, name="credentials").start()
    rounds = []
    try:
        for i in range(1 if quick else 3):
            floor = uvloop.run(measure_floor(message, warmup=20, turns=turns))
            row: dict[str, Any] = {"turns": turns, "floor": floor["p50"]}
            for kinds in (("JWT", "cookie"), ("agent JWT", "agent key")):
                row |= asyncio.run(
                    _paired(
                        server.base_url,
                        user=f"bench-cred-{i}-{kinds[0].split()[0].lower()}",
                        kinds=kinds,
                        message=message,
                        turns=turns,
                    )
                )
            rounds.append(row)
            progress(
                f"   round {i + 1}: floor {ms(row['floor'])}, JWT {ms(row['JWT'])}, cookie "
                f"{ms(row['cookie'])}; agent JWT {ms(row['agent JWT'])}, key {ms(row['agent key'])}"
            )
    finally:
        server.stop()
    return rounds
