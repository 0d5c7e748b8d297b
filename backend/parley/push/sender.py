"""Each instance's push sender: claims due outbox rows, encrypts each for its device
(RFC 8291, aes128gcm, `encryption.py`, off the event loop) and posts it to the device's push
service with a VAPID header (aiohttp, keep-alive connections per push host), then records
what the service said.

Posting uses aiohttp rather than httpx: with hundreds of pushes queued, httpx's connection
pool spent milliseconds of CPU per request (it rescans its pool for every request), which
made the 500th device wait seconds; aiohttp's client costs a small fraction of that.

It wakes when the instance's reader finds outbox rows committed on any instance (never for
the messages and events that notify nobody: a chat turn costs the sender nothing), when a
retry falls due, and every `idle` seconds regardless. Nothing here runs inside a turn or an agent's
`ask_user`: a slow or failing push service delays only its own pushes.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import logging
import time
from dataclasses import dataclass

import aiohttp

from parley.config import Settings
from parley.db import Database
from parley.push import outbox, payload
from parley.push.encryption import EncryptionError, encrypt
from parley.push.outbox import Claimed, Outcome
from parley.push.subscriptions import host_allowed
from parley.push.vapid import VapidKey
from parley.realtime.waits import PUSHES, Waits

log = logging.getLogger(__name__)

# Rows claimed at once: one claim (one statement) covers a question to 500 devices, so no
# device waits for an earlier batch to be settled and the next one claimed.
BATCH = 500
# Posts in flight per instance (and keep-alive connections per push host).
CONCURRENCY = 16
ENCRYPT_CHUNK = 25
TTL = {"question": 24 * 3600, "reminder": 24 * 3600, "question_closed": 24 * 3600}


@dataclass
class Counters:
    """What the sender did, for tests and the bench."""

    rounds: int = 0  # times it woke and looked for due pushes
    sent: int = 0
    retried: int = 0
    gone: int = 0
    failed: int = 0


def _encrypt_one(row: Claimed) -> bytes | None:
    try:
        return encrypt(payload.encode(row), p256dh=row.p256dh, auth=row.auth)
    except EncryptionError:  # keys that are no P-256 point after all: this push can never go
        log.warning("push %s could not be encrypted", row.id, exc_info=True)
        return None


def _encrypt(rows: list[Claimed]) -> list[bytes | None]:
    """CPU work (an ECDH and an AES-GCM per device), done in a thread for a whole batch."""
    return [_encrypt_one(row) for row in rows]


def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:  # or an HTTP date; anything else is ignored (our own backoff applies)
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Sender:
    def __init__(
        self,
        *,
        db: Database,
        settings: Settings,
        vapid: VapidKey,
        waits: Waits,
        idle: float = 5.0,
    ) -> None:
        self.db = db
        self.settings = settings
        self.vapid = vapid
        self.waits = waits
        self.idle = idle
        self.counters = Counters()
        # Made in the running loop (the lifespan); no proxy from the environment, and
        # redirects are never followed (a redirect could point anywhere).
        self._client = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=CONCURRENCY, limit_per_host=CONCURRENCY),
            timeout=aiohttp.ClientTimeout(total=settings.push_timeout),
            trust_env=False,
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
        await self._client.close()

    async def _run(self) -> None:
        while True:
            with self.waits.watch(PUSHES) as woken:
                self.counters.rounds += 1
                try:
                    await self.send_due()
                    async with self.db.connection() as conn:
                        due = await outbox.next_due(conn)
                except Exception:  # the database is away...: try again after a pause
                    log.warning("push sender failed; trying again", exc_info=True)
                    due = None
                wait = self.idle if due is None else min(self.idle, due + 0.01)
                await asyncio.wait([woken], timeout=wait)

    async def send_due(self) -> int:
        """Send everything due now, batch after batch; returns how many were tried."""
        tried = 0
        while True:
            async with self.db.connection() as conn:
                rows = await outbox.claim(
                    conn, limit=BATCH, max_attempts=self.settings.push_max_attempts
                )
            if not rows:
                return tried
            tried += len(rows)
            # A batch may outlast its lease (a slow push service, many devices): the lease
            # is renewed while this instance works on it, and lapses only if it dies.
            renewing = asyncio.create_task(self._renew(rows))
            try:
                results = await self._send(rows)
            finally:
                renewing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewing
            async with self.db.transaction() as conn:
                await outbox.settle(conn, results, max_attempts=self.settings.push_max_attempts)

    async def _renew(self, rows: list[Claimed]) -> None:
        while True:
            await asyncio.sleep(outbox.LEASE_SECONDS / 3)
            try:
                async with self.db.connection() as conn:
                    await outbox.renew(conn, rows)
            except Exception:  # the database is away: the lease may lapse, a push may repeat
                log.warning("push lease renewal failed", exc_info=True)

    async def _send(self, rows: list[Claimed]) -> list[tuple[Claimed, Outcome, str | None, float]]:
        allowed = self.settings.push_allowed_hosts
        results: list[tuple[Claimed, Outcome, str | None, float]] = []
        sendable: list[Claimed] = []
        for row in rows:  # re-checked at each send: the allowlist may have changed since
            if host_allowed(row.endpoint, allowed):
                sendable.append(row)
            else:
                results.append((row, Outcome.failed, "endpoint host is not allowed", 0.0))
        # Encrypted a chunk at a time, each chunk posted while the next one is encrypted:
        # the first devices hear of it without waiting for the last one's encryption.
        posting: list[asyncio.Task[tuple[Claimed, Outcome, str | None, float]]] = []
        for start in range(0, len(sendable), ENCRYPT_CHUNK):
            chunk = sendable[start : start + ENCRYPT_CHUNK]
            bodies = await asyncio.to_thread(_encrypt, chunk)
            for row, body in zip(chunk, bodies, strict=True):
                if body is None:
                    results.append((row, Outcome.failed, "cannot encrypt", 0.0))
                else:
                    posting.append(asyncio.create_task(self._post(row, body)))
        results += await asyncio.gather(*posting)
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
                async with self._client.post(
                    row.endpoint, data=body, headers=headers, allow_redirects=False
                ) as response:
                    status = response.status
                    text = (await response.read())[:300].decode(errors="replace")
                    retry_after = _retry_after(response)
            except (aiohttp.ClientError, TimeoutError) as exc:
                delay = outbox.backoff(row.attempts, base=base, retry_after=None)
                return row, Outcome.retry, f"{type(exc).__name__}: {exc}"[:500], delay
        if 200 <= status < 300:
            return row, Outcome.sent, None, 0.0
        error = f"HTTP {status}: {text}"
        if status in (404, 410):
            return row, Outcome.gone, error, 0.0
        if status == 429 or status >= 500:
            delay = outbox.backoff(row.attempts, base=base, retry_after=retry_after)
            return row, Outcome.retry, error, delay
        return row, Outcome.failed, error, 0.0
