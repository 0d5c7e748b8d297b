"""What the fault tests share: a client that talks like a person (send, retry, resend), and
the checks every fault must pass: nothing acknowledged lost, no effect twice, every effect
visible in its conversation."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx

from parley.db import Database
from tests.conftest import token_for


def auth(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(user)}"}


async def messages(db: Database, conversation_id: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, role, content, tool_calls, error, meta FROM messages"
            " WHERE conversation_id = $1 ORDER BY id",
            conversation_id,
        )
    return [dict(r) for r in rows]


async def tasks_titled(db: Database, user: str) -> list[str]:
    async with db.connection() as conn:
        rows = await conn.fetch("SELECT title FROM tasks WHERE user_id = $1 ORDER BY id", user)
    return [r["title"] for r in rows]


async def turn_until_accepted(
    base: str, user: str, conversation_id: int, message: str, *, within: float = 30
) -> tuple[float, httpx.Response]:
    """Act as a person getting their next turn through after a fault: resend `message` if it
    never got stored, retry the turn if it failed, else just say the next thing; until a turn
    is accepted. Returns how long it took and the accepted response."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=base, headers=auth(user), timeout=30) as client:
        while True:
            history = await client.get(f"/api/{user}/conversations/{conversation_id}/messages")
            found = history.json() if history.status_code == 200 else []
            stored = any(m["role"] == "user" and m["content"] == message for m in found)
            failed = bool(found) and found[-1]["error"]
            body: dict[str, Any] = {"conversation_id": conversation_id}
            if not stored:
                body["message"] = message
            elif failed or (found and found[-1]["role"] == "user"):
                body["retry"] = True  # (a dead turn is answered when its claim is taken)
            else:
                body["message"] = "list my tasks"
            response = await client.post(f"/api/{user}/chat", json=body)
            if response.status_code == 200:  # (includes the model's time: an upper bound)
                return time.monotonic() - started, response
            if time.monotonic() - started > within:
                raise AssertionError(f"not accepted in {within} s: {response.text}")
            await asyncio.sleep(0.1)


def tool_calls_in(history: list[dict[str, Any]], tool: str) -> list[dict[str, Any]]:
    calls = []
    for message in history:
        for call in message["tool_calls"] or []:
            if call["tool"] == tool:
                calls.append(call)
    return calls


def task_titles_recorded(history: list[dict[str, Any]]) -> list[str]:
    """The titles of the tasks the conversation says were added (results, not attempts)."""
    titles = []
    for call in tool_calls_in(history, "add_task"):
        result = call["result"]
        if isinstance(result, str):
            result = json.loads(result)
        if isinstance(result, dict) and "error" not in result:
            titles.append(call["parameters"]["title"])
    return titles
