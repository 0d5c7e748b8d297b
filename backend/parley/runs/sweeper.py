"""Each instance looks now and then for silent runs, overdue questions and delegations
nobody claimed; whichever instance gets to one first closes it (the updates skip rows
another has locked)."""

from __future__ import annotations

import asyncio
import logging

from parley.config import Settings
from parley.db import Database
from parley.runs.delegations import time_out_unclaimed
from parley.runs.questions import expire_overdue
from parley.runs.runs import time_out_silent

log = logging.getLogger(__name__)


async def sweep_once(db: Database, settings: Settings) -> None:
    await time_out_silent(db, silence_seconds=settings.run_silence_timeout)
    await time_out_unclaimed(db)
    async with db.connection() as conn:
        await expire_overdue(conn)


async def sweep_forever(db: Database, settings: Settings) -> None:
    while True:
        await asyncio.sleep(settings.sweep_seconds)
        try:
            await sweep_once(db, settings)
        except Exception:  # the database is away, a deadlock victim...: next round
            log.warning("sweep failed; trying again in %s s", settings.sweep_seconds, exc_info=True)
