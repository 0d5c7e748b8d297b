"""What each row of a person's change log (`user_events`) becomes on their event stream.

`parley.realtime.user_stream` moves the rows; this turns them into SSE events carrying the
current state of what each names, read from its own domain when it is sent. So a replayed
event never resurrects stale data, and rendering costs nothing unless someone is watching.
It lives with the routes because it is the wire shape: it knows every domain, and realtime
knows none.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley import tasks
from parley.auth import Caller
from parley.conversations import summaries_of
from parley.db import Database
from parley.errors import NotFound
from parley.modes import Modes
from parley.questions.ask import get_question
from parley.realtime.user_stream import Render, Rendered
from parley.runs.runs import runs_by_id
from parley.runs.schemas import question_json, run_json
from parley.schemas import conversation_out, task_json


def renderer(db: Database, modes: Modes, *, user_id: str) -> Render:
    """The person's `render` for `parley.realtime.user_stream.person_events`."""

    async def render(rows: list[asyncpg.Record]) -> list[tuple[int, list[Rendered]]]:
        return await _render(db, modes, user_id=user_id, rows=rows)

    return render


async def _render(
    db: Database, modes: Modes, *, user_id: str, rows: list[asyncpg.Record]
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
    work = await modes.states(
        user_id=user_id, found=[(i, s.conversation.mode) for i, s in convs.items()]
    )
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


async def _tasks(db: Database, user_id: str, ids: set[int]) -> dict[int, Any]:
    if not ids:
        return {}
    found = await tasks.tasks_by_id(db, user_id=user_id, ids=sorted(ids))
    return {t.id: task_json(t) for t in found}


async def _runs(db: Database, user_id: str, ids: set[int]) -> dict[int, Any]:
    if not ids:
        return {}
    return {r.id: run_json(r) for r in await runs_by_id(db, user_id=user_id, ids=sorted(ids))}
