"""The instance's push machinery, made and stopped by the app's lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

from parley.config import Settings
from parley.db import Database
from parley.push import escalation
from parley.push.sender import Sender
from parley.push.vapid import VapidKey, load_key
from parley.realtime.waits import Waits


@dataclass
class Push:
    vapid: VapidKey
    sender: Sender
    escalations: asyncio.Task[None]

    async def stop(self) -> None:
        self.escalations.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.escalations
        await self.sender.stop()


async def start(db: Database, settings: Settings, waits: Waits) -> Push:
    vapid = await load_key(
        db, configured=settings.vapid_private_key, subject=settings.vapid_subject
    )
    sender = Sender(db=db, settings=settings, vapid=vapid, waits=waits)
    sender.start()
    escalations = asyncio.create_task(
        escalation.run_forever(db, settings, every=settings.sweep_seconds)
    )
    return Push(vapid=vapid, sender=sender, escalations=escalations)
