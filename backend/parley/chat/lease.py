"""Short claims: a turn holds its conversation only while it is alive.

A claim lasts `claim_seconds` (a few seconds) and the live turn renews it three times as
often. When the turn's server dies, or loses the database, renewals stop and the claim
lapses within seconds; every instance sweeps lapsed claims, and the sweep (or the next
turn's start) answers the dead turn (parley/sql/turn_abandoned.sql). So a crash frees a
conversation in about `claim_seconds`, not after the longest a model may take.

Never two live turns at once: a turn that cannot renew before its claim would lapse (the
database is away longer than a claim lasts, say) stops itself. Its own clock starts before
each renewal is sent, so it always gives up no later than the database lets the claim go;
and its tool calls are fenced by the claim (parley.assistant.ledger), its reply by the finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from parley.chat import store
from parley.db import Database
from parley.errors import TurnInProgress

log = logging.getLogger(__name__)


class ClaimLost(TurnInProgress):
    """The turn's claim lapsed (or was taken) while it ran."""


@asynccontextmanager
async def held(
    db: Database, *, user_id: str, conversation_id: int, turn_id: str, seconds: float
) -> AsyncIterator[None]:
    """Keep the turn's claim alive while the body runs; if it is lost, cancel the body and
    raise ClaimLost instead."""
    body = asyncio.current_task()
    assert body is not None
    lost = asyncio.Event()

    async def renew() -> None:
        loop = asyncio.get_running_loop()
        valid_until = loop.time() + seconds  # start_turn just set it
        while True:
            await asyncio.sleep(seconds / 3)
            sent = loop.time()
            try:
                async with asyncio.timeout(max(valid_until - sent, 0.01)):
                    async with db.connection() as conn:
                        renewed = await store.renew(
                            conn,
                            user_id=user_id,
                            conversation_id=conversation_id,
                            turn_id=turn_id,
                            seconds=seconds,
                        )
                if renewed:
                    valid_until = sent + seconds
                    continue
            except (TimeoutError, Exception) as exc:  # the database is away: try again
                if loop.time() < valid_until:
                    log.warning("renewing the claim of turn %s failed: %s", turn_id, exc)
                    continue
            break
        log.warning("turn %s lost its claim on conversation %s", turn_id, conversation_id)
        lost.set()
        body.cancel()

    renewer = asyncio.create_task(renew())
    try:
        yield
    except asyncio.CancelledError:
        if lost.is_set():
            body.uncancel()  # the cancellation was ours, and it is answered here
            raise ClaimLost(
                "This reply lost its hold on the conversation and was stopped",
                conversation_id=conversation_id,
            ) from None
        raise
    finally:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer


async def sweep(db: Database) -> int:
    """Release every lapsed claim (the trigger answers each dead turn); how many."""
    released = 0
    async with db.connection() as conn:
        for row in await store.lapsed(conn):
            released += await store.release(conn, user_id=row["user_id"], conversation_id=row["id"])
    return released


async def keep_sweeping(db: Database, *, every: float) -> None:
    """Each instance sweeps: a crash is answered even if no instance shares its host."""
    while True:
        await asyncio.sleep(every)
        try:
            if released := await sweep(db):
                log.info("released %d lapsed turn claim(s)", released)
        except Exception as exc:  # the database is away: the next sweep will do
            log.warning("sweeping lapsed claims failed: %s", exc)
