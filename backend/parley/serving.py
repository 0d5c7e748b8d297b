"""How uvicorn serves Parley: the connection guard and the options every server uses.

uvicorn times out idle keep-alive connections but nothing else: a client that opens a
connection and sends nothing, or dribbles its headers a byte at a time, or stops half way
through a body, holds that connection (and, for a body, a request task) for ever. The
guard is uvicorn's own HTTP protocol with three deadlines and a per-client cap:

- headers: a request's headers must be complete within `header_timeout` seconds of its
  first byte (or of the connection opening);
- body: no more than `body_timeout` seconds between two pieces of a request body;
- at most `max_connections_per_client` open connections per client address (an IPv6
  client: per /64, see parley.addresses); more are answered 429 and closed.

A guard that fires answers 408 (when no response has begun) and closes the connection,
after a short linger that keeps a client still sending from losing the answer to a reset.
Once a request is read nothing times out here: a streamed reply may run for minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from parley import addresses
from parley.config import Settings

LIMITS_STATE_KEY = "parley.connection_limits"
# How long a refused connection stays open, reading and dropping, before it is closed.
LINGER_SECONDS = 2.0


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    max_header_bytes: int = 64 * 1024
    max_connections_per_client: int = 256

    @classmethod
    def from_settings(cls, settings: Settings) -> ConnectionLimits:
        return cls(
            header_timeout=settings.header_timeout,
            body_timeout=settings.body_timeout,
            max_header_bytes=settings.max_header_bytes,
            max_connections_per_client=settings.max_connections_per_client,
        )


def _raw_error(status: int, reason: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the deadlines and cap above. The limits come
    from the lifespan state (`LIMITS_STATE_KEY`), so each app serves with its own
    settings; the defaults hold until the lifespan has run."""

    _deadline: asyncio.TimerHandle | None = None
    _header_bytes = 0
    _counted: tuple[Counter[str], str] | None = None
    _refused = False

    @property
    def _limits(self) -> ConnectionLimits:
        limits = self.app_state.get(LIMITS_STATE_KEY)
        return limits if isinstance(limits, ConnectionLimits) else ConnectionLimits()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        limits = self._limits
        # One client, however its socket spells it (::ffff:10.0.0.7) or whichever of its
        # IPv6 /64's addresses it uses.
        host = addresses.group(self.client[0] if self.client else None)
        clients: Counter[str] = self.server_state.__dict__.setdefault("parley_clients", Counter())
        clients[host] += 1
        self._counted = (clients, host)
        cap = limits.max_connections_per_client
        if cap and clients[host] > cap:
            self._refuse(
                429,
                "Too Many Requests",
                "too_many_connections",
                f"At most {cap} open connections per client",
            )
            return
        self._arm(limits.header_timeout)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # refused: what the client still sends is read and dropped until we close
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted is not None:
            clients, host = self._counted
            clients[host] -= 1
            if clients[host] <= 0:
                del clients[host]
            self._counted = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0
        self._arm(self._limits.header_timeout)

    def on_url(self, url: bytes) -> None:
        self._count_header_bytes(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_header_bytes(len(name) + len(value))
        super().on_header(name, value)

    def _count_header_bytes(self, size: int) -> None:
        self._header_bytes += size
        limit = self._limits.max_header_bytes
        if limit and self._header_bytes > limit and not self.transport.is_closing():
            self._refuse(
                431,
                "Request Header Fields Too Large",
                "headers_too_large",
                f"The request line and headers are larger than {limit} bytes",
            )

    def on_headers_complete(self) -> None:
        if self.transport.is_closing():
            return  # refused while its headers arrived: never reaches the app
        super().on_headers_complete()
        self._arm(self._limits.body_timeout)  # cancelled at once if there is no body

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._arm(self._limits.body_timeout)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        if seconds > 0:
            self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._refused or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete or not cycle.response_started:
            self._refuse(
                408, "Request Timeout", "request_timeout", "The request was not sent in time"
            )
        else:
            self.transport.close()

    def _refuse(self, status: int, reason: str, code: str, message: str) -> None:
        self._disarm()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # The app (reading a body, say) sees a disconnected client, and its own
            # response, if any, is dropped: this one was the answer.
            cycle.disconnected = True
            cycle.message_event.set()
        self.transport.write(_raw_error(status, reason, code, message))
        self._linger()

    def _linger(self) -> None:
        """Close after a refusal without losing the refusal. Closing a socket while the
        client is still sending (a slow or oversized upload) makes the kernel answer with a
        reset, and a reset can discard the response the client has not read yet. So: end our
        side after the response, keep reading and dropping what still comes, and close a
        little later (or when the client does)."""
        self._refused = True
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        with contextlib.suppress(Exception):
            self.transport.resume_reading()
        self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What every Parley server passes to uvicorn (`parley serve`, the tests' servers)."""
    return {
        "http": GuardedHttpProtocol,
        "timeout_keep_alive": settings.keepalive_timeout,
        "timeout_graceful_shutdown": settings.shutdown_grace_seconds,
    }
