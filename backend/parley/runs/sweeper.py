"""Each instance looks now and then for delegations nobody claimed in time, claims that
lapsed unacknowledged, silent runs, overdue questions and audit events past
PARLEY_AUDIT_DAYS; whichever instance gets to one
first moves it (each skips rows another has locked)."""

from __future__ import annotations

import asyncio
import logging

from parley import audit
from parley.config import Settings
from parley.db import Database
from parley.questions.expiry import expire_overdue
from parley.runs.delegations import sweep_threads
from parley.runs.runs import time_out_silent

log = logging.getLogger(__name__)


async def sweep_once(db: Database, settings: Settings) -> None:
    await sweep_threads(db)
    await time_out_silent(db, silence_seconds=settings.run_silence_timeout)
    async with db.connection() as conn:
        await expire_overdue(conn)
    await audit.sweep(db, days=settings.audit_days)


async def sweep_forever(db: Database, settings: Settings) -> None:
    while True:
        await asyncio.sleep(settings.sweep_seconds)
        try:
            await sweep_once(db, settings)
        except Exception:  # the database is away, a deadlock victim...: next round
            log.warning("sweep failed; trying again in %s s", settings.sweep_seconds, exc_info=True)
