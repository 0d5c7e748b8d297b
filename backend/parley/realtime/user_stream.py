"""One event stream per person: everything their UI shows outside the open conversation.

The source is `user_events`, the person's change log, written by triggers at commit
(migration 0010) whoever the writer. Its rows say what changed (kind, action, id); the
stream sends the current state of each changed thing, read when it is sent. A replayed
event therefore never resurrects stale data, and rendering costs nothing unless someone
is watching. The SSE `id:` is the event id: `Last-Event-ID` resumes exactly after it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
from sse_starlette import ServerSentEvent

from parley import tasks
from parley.auth import Caller
from parley.conversations import summaries_of
from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound
from parley.models import ConversationMode
from parley.realtime.waits import Waits
from parley.runs import runs
from parley.runs.questions import get_question
from parley.runs.schemas import question_json, run_json
from parley.schemas import TaskOut, conversation_out
from parley.work.service import states as work_states

PAGE = 200
Rendered = tuple[str, dict[str, Any]]


@retry_on_reconnect
async def latest_event_id(db: Database, *, user_id: str) -> int:
    async with db.connection() as conn:
        latest = await conn.fetchval("SELECT max(id) FROM user_events WHERE user_id = $1", user_id)
    return int(latest or 0)


@retry_on_reconnect
async def events_after(db: Database, *, user_id: str, after: int) -> list[asyncpg.Record]:
    async with db.connection() as conn:
        rows: list[asyncpg.Record] = await conn.fetch(
            "SELECT id, kind, action, ref, data FROM user_events"
            " WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3",
            user_id,
            after,
            PAGE,
        )
    return rows


async def render(
    db: Database, *, user_id: str, rows: list[asyncpg.Record]
) -> list[tuple[int, list[Rendered]]]:
    """Each event row as the SSE events it becomes, with the current state of what it names."""
    refs: dict[str, set[int]] = {}
    for row in rows:
        kind = "conversation" if row["kind"] in ("message", "read") else row["kind"]
        ref = row["data"]["conversation_id"] if row["kind"] == "message" else row["ref"]
        refs.setdefault(kind, set()).add(int(ref))
    found_tasks = await _tasks(db, user_id, refs.get("task", set()))
    convs = {
        s.conversation.id: s
        for s in (
            await summaries_of(db, user_id=user_id, ids=sorted(refs["conversation"]))
            if "conversation" in refs
            else []
        )
    }
    work_ids = [i for i, s in convs.items() if s.conversation.mode == ConversationMode.work.value]
    work = await work_states(db, user_id=user_id, conversation_ids=work_ids) if work_ids else {}
    found_runs = await _runs(db, user_id, refs.get("run", set()))
    out: list[tuple[int, list[Rendered]]] = []
    for row in rows:
        kind, action, ref, data = row["kind"], row["action"], int(row["ref"]), row["data"]
        events: list[Rendered] = []
        if kind == "task":
            task = found_tasks.get(ref)
            events.append(("task", {"action": action, "task": task, "number": data["number"]}))
        elif kind == "conversation":
            summary = convs.get(ref)
            conversation = (
                conversation_out(summary, work.get(ref)).model_dump(mode="json")
                if summary
                else None
            )
            events.append(
                ("conversation", {"action": action, "conversation": conversation, "id": ref})
            )
        elif kind in ("message", "read"):
            conversation_id = int(data["conversation_id"]) if kind == "message" else ref
            summary = convs.get(conversation_id)
            if summary is not None:  # deleted since: its own event says so
                if kind == "message":
                    events.append(
                        (
                            "conversation",
                            {
                                "action": "updated",
                                "conversation": conversation_out(
                                    summary, work.get(conversation_id)
                                ).model_dump(mode="json"),
                                "id": conversation_id,
                            },
                        )
                    )
                if kind == "read" or data.get("role") != "user":
                    events.append(
                        ("unread", {"conversation_id": conversation_id, "unread": summary.unread})
                    )
        elif kind == "run" and ref in found_runs:
            events.append(("run", {"run": found_runs[ref]}))
        elif kind == "question":
            try:
                state = await get_question(db, caller=Caller(user_id), question_id=ref)
            except NotFound:
                pass
            else:
                events.append(("question", {"action": action, **question_json(state)}))
        out.append((int(row["id"]), events))
    return out


async def _rows(db: Database, user_id: str, sql: str, ids: set[int]) -> list[asyncpg.Record]:
    """`sql` (with `$1` the user, `$2` the ids) for the ids named by a page of events."""
    if not ids:
        return []
    async with db.connection() as conn:
        rows: list[asyncpg.Record] = await conn.fetch(sql, user_id, sorted(ids))
    return rows


async def _tasks(db: Database, user_id: str, ids: set[int]) -> dict[int, Any]:
    sql = f"SELECT {tasks.COLUMNS} FROM tasks WHERE user_id = $1 AND id = ANY($2::int[])"
    found = [tasks.TaskRecord(**r) for r in await _rows(db, user_id, sql, ids)]
    return {t.id: TaskOut.model_validate(t).model_dump(mode="json") for t in found}


async def _runs(db: Database, user_id: str, ids: set[int]) -> dict[int, Any]:
    sql = f"SELECT {runs.COLUMNS} FROM agent_runs WHERE user_id = $1 AND id = ANY($2::int[])"
    return {r["id"]: run_json(runs.record(r)) for r in await _rows(db, user_id, sql, ids)}


async def person_events(
    db: Database, waits: Waits, *, user_id: str, after: int, ping_seconds: float
) -> AsyncIterator[ServerSentEvent]:
    """`ready` first (its id is the cursor the stream starts from), then every change after
    it; a `: ping` comment after `ping_seconds` of silence."""
    cursor = after
    yield ServerSentEvent(data=json.dumps({"cursor": cursor}), event="ready", id=str(cursor))
    while True:
        with waits.watch(("user", user_id)) as woken:
            rows = await events_after(db, user_id=user_id, after=cursor)
            if not rows:
                done, _ = await asyncio.wait({woken}, timeout=ping_seconds)
                if not done:
                    yield ServerSentEvent(comment="ping")
                continue
        for event_id, events in await render(db, user_id=user_id, rows=rows):
            for index, (name, data) in enumerate(events):
                last = index == len(events) - 1
                yield ServerSentEvent(
                    data=json.dumps(data), event=name, id=str(event_id) if last else None
                )
            cursor = event_id
