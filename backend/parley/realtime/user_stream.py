"""One event stream per person: everything their UI shows outside the open conversation.

The source is `user_events`, the person's change log, written by triggers at commit
(migration 0010) whoever the writer. Its rows say what changed (kind, action, id); this
module only moves them, in order and resumably: what each becomes on the wire is the
caller's `render` (`parley.api.person_events`), so realtime knows no domain. The SSE `id:`
is the event id: `Last-Event-ID` resumes exactly after it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
from sse_starlette import ServerSentEvent

from parley.db import Database, retry_on_reconnect
from parley.realtime import store
from parley.realtime.waits import Waits

PAGE = 200
# One SSE event: its name and its data.
Rendered = tuple[str, dict[str, Any]]
# A page of event rows as the SSE events each becomes (`parley.api.person_events.render`).
Render = Callable[[list[asyncpg.Record]], Awaitable[list[tuple[int, list[Rendered]]]]]


@retry_on_reconnect
async def latest_event_id(db: Database, *, user_id: str) -> int:
    async with db.connection() as conn:
        return await store.latest_event_id(conn, user_id=user_id)


@retry_on_reconnect
async def events_after(db: Database, *, user_id: str, after: int) -> list[asyncpg.Record]:
    async with db.connection() as conn:
        return await store.events_after(conn, user_id=user_id, after=after, limit=PAGE)


async def person_events(
    db: Database,
    waits: Waits,
    *,
    user_id: str,
    after: int,
    ping_seconds: float,
    render: Render,
) -> AsyncIterator[ServerSentEvent]:
    """`ready` first (its id is the cursor the stream starts from), then every change after
    it, as `render` makes each row; a `: ping` comment after `ping_seconds` of silence."""
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
        for event_id, events in await render(rows):
            for index, (name, data) in enumerate(events):
                last = index == len(events) - 1
                yield ServerSentEvent(
                    data=json.dumps(data), event=name, id=str(event_id) if last else None
                )
            cursor = event_id
