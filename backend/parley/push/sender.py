"""Each instance's push sender: claims due outbox rows, encrypts each for its device
(RFC 8291, aes128gcm, by pywebpush off the event loop) and posts it to the device's push
service with a VAPID header (httpx, async), then records what the service said.

It wakes when the instance's reader finds a question, run or message event committed on
any instance (the outbox rows were written in the same transaction), when a retry falls
due, and every `idle` seconds regardless. Nothing here runs inside a turn or an agent's
`ask_user`: a slow or failing push service delays only its own pushes.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import time
from dataclasses import dataclass

import httpx
from pywebpush import WebPusher

from parley.config import Settings
from parley.db import Database
from parley.push import outbox, payload
from parley.push.outbox import Claimed, Outcome
from parley.push.subscriptions import host_allowed
from parley.push.vapid import VapidKey
from parley.realtime.waits import Waits

log = logging.getLogger(__name__)

BATCH = 200
CONCURRENCY = 64
WAKE_KINDS = ("question", "run", "message")
TTL = {"question": 24 * 3600, "reminder": 24 * 3600, "question_closed": 24 * 3600}


@dataclass
class Counters:
    """What the sender did, for tests and the bench."""

    sent: int = 0
    retried: int = 0
    gone: int = 0
    failed: int = 0


def _encrypt(rows: list[Claimed]) -> list[bytes]:
    """CPU work (an ECDH and an AES-GCM per device), done in a thread for a whole batch."""
    return [
        WebPusher(
            {"endpoint": row.endpoint, "keys": {"p256dh": row.p256dh, "auth": row.auth}}
        ).encode(payload.encode(row), content_encoding="aes128gcm")["body"]
        for row in rows
    ]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time()) if when else None


class Sender:
    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        vapid: VapidKey,
        waits: Waits,
        idle: float = 5.0,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.vapid = vapid
        self.waits = waits
        self.idle = idle
        self.counters = Counters()
        self._client = client or httpx.AsyncClient(
            timeout=settings.push_timeout,
            follow_redirects=False,  # a redirect could point anywhere: never followed
            limits=httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY),
        )
        self._limit = asyncio.Semaphore(CONCURRENCY)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._client.aclose()

    async def _run(self) -> None:
        while True:
            with contextlib.ExitStack() as stack:
                woken = [stack.enter_context(self.waits.watch(("kind", k))) for k in WAKE_KINDS]
                try:
                    await self.send_due()
                    async with self.db.connection() as conn:
                        due = await outbox.next_due(conn)
                except Exception:  # the database is away...: try again after a pause
                    log.warning("push sender failed; trying again", exc_info=True)
                    due = None
                wait = self.idle if due is None else min(self.idle, due + 0.01)
                await asyncio.wait(woken, timeout=wait, return_when=asyncio.FIRST_COMPLETED)

    async def send_due(self) -> int:
        """Send everything due now, batch after batch; returns how many were tried."""
        tried = 0
        while True:
            async with self.db.connection() as conn:
                rows = await outbox.claim(conn, limit=BATCH)
            if not rows:
                return tried
            tried += len(rows)
            results = await self._send(rows)
            async with self.db.transaction() as conn:
                await outbox.settle(conn, results, max_attempts=self.settings.push_max_attempts)

    async def _send(self, rows: list[Claimed]) -> list[tuple[Claimed, Outcome, str | None, float]]:
        allowed = self.settings.push_allowed_hosts
        refused = [row for row in rows if not host_allowed(row.endpoint, allowed)]
        sendable = [row for row in rows if host_allowed(row.endpoint, allowed)]
        bodies = await asyncio.to_thread(_encrypt, sendable) if sendable else []
        results: list[tuple[Claimed, Outcome, str | None, float]] = [
            (row, Outcome.failed, "endpoint host is not allowed", 0.0) for row in refused
        ]
        results += await asyncio.gather(
            *(self._post(row, body) for row, body in zip(sendable, bodies, strict=True))
        )
        for _row, outcome, _error, _delay in results:
            if outcome is Outcome.sent:
                self.counters.sent += 1
            elif outcome is Outcome.retry:
                self.counters.retried += 1
            elif outcome is Outcome.gone:
                self.counters.gone += 1
            else:
                self.counters.failed += 1
        return results

    async def _post(self, row: Claimed, body: bytes) -> tuple[Claimed, Outcome, str | None, float]:
        headers = {
            "Authorization": self.vapid.authorization(row.endpoint),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(TTL.get(row.kind, 4 * 3600)),
            "Urgency": "high" if row.kind in ("question", "reminder") else "normal",
        }
        base = self.settings.push_retry_base
        async with self._limit:
            try:
                response = await self._client.post(row.endpoint, content=body, headers=headers)
            except httpx.HTTPError as exc:
                delay = outbox.backoff(row.attempts, base=base, retry_after=None)
                return row, Outcome.retry, f"{type(exc).__name__}: {exc}"[:500], delay
        status = response.status_code
        if 200 <= status < 300:
            return row, Outcome.sent, None, 0.0
        error = f"HTTP {status}: {response.text[:300]}"
        if status in (404, 410):
            return row, Outcome.gone, error, 0.0
        if status == 429 or status >= 500:
            delay = outbox.backoff(row.attempts, base=base, retry_after=_retry_after(response))
            return row, Outcome.retry, error, delay
        return row, Outcome.failed, error, 0.0
