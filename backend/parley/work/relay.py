"""The model relay: how a sandboxed session reaches the Anthropic API without the operator's key.

Each session's process gets a Unix socket of its own (bound into its sandbox, see forward.py)
and a random token as its ANTHROPIC_API_KEY. The relay answers HTTP/1.1 on that socket: a
Messages API request (`POST /v1/messages`, `/v1/messages/count_tokens`) carrying the token of
that very socket's session goes upstream (ANTHROPIC_BASE_URL) with the operator's key in
place of the token, and the response streams back while its usage is counted for the person
and conversation. Anything else is refused. A token works on its own socket only, and only
until its session's process is gone (the socket is then closed and removed): another
person's token is useless in a sandbox that only has its own socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import h11
import httpx
import psutil

from parley.config import Settings
from parley.db import Database
from parley.work import usage

log = logging.getLogger(__name__)

ALLOWED = {"/v1/messages", "/v1/messages/count_tokens"}
MAX_BODY = 32 << 20  # the Messages API's own request limit
# Per session process: the connections it may hold open (a request body is held whole
# before it goes on), and how long one may sit idle between requests. More are closed.
MAX_CONNECTIONS = 16
IDLE_SECONDS = 120.0
_CHUNK = 65536
# Never passed on, either way: hop-by-hop fields, the body's framing (set again here), and
# credentials (the session's token in, the operator's key out; cookies neither way).
_REQUEST_DROPPED = {
    b"host",
    b"connection",
    b"keep-alive",
    b"proxy-authorization",
    b"proxy-connection",
    b"te",
    b"trailer",
    b"transfer-encoding",
    b"upgrade",
    b"content-length",
    b"accept-encoding",
    b"x-api-key",
    b"authorization",
    b"cookie",
}
_RESPONSE_DROPPED = {
    b"connection",
    b"keep-alive",
    b"transfer-encoding",
    b"content-length",
    b"content-encoding",
    b"set-cookie",
    b"upgrade",
    b"trailer",
}


@dataclass(eq=False)
class Channel:
    """One session process's way to the model: its socket, its token, whose it is."""

    user_id: str
    conversation_id: int
    token: str
    socket: Path
    server: asyncio.AbstractServer | None = None
    writers: set[asyncio.StreamWriter] = field(default_factory=set)
    open: bool = True

    def accepts(self, presented: str | None) -> bool:
        return (
            self.open
            and presented is not None
            and hmac.compare_digest(presented.encode(), self.token.encode())
        )


def _error(status: int, kind: str, message: str) -> tuple[int, bytes]:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return status, json.dumps(body).encode()


def _private_folder() -> Path:
    """The instance's folder for its sockets: short (a socket path has ~100 bytes) and private
    (0700). Folders of instances that died without cleaning up (kill -9) go first."""
    prefix = "parley-relay-"
    for stale in Path(tempfile.gettempdir()).glob(prefix + "*-*"):
        pid = stale.name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not psutil.pid_exists(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _only_for(path: Path, uid: int | None) -> None:
    if uid is not None:
        os.chown(path, uid, uid)
    os.chmod(path, 0o600)


def presented_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The credential a request carries: its x-api-key, else a bearer token."""
    for name, value in headers:
        if name == b"x-api-key":
            return value.decode("latin-1")
    for name, value in headers:
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return value[7:].decode("latin-1").strip()
    return None


class Relay:
    """The relay of one Parley instance: a socket per live session process."""

    def __init__(self, *, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self._folder: Path | None = None
        self._client: httpx.AsyncClient | None = None
        self._channels: set[Channel] = set()
        self._ids = itertools.count(1)

    @property
    def upstream(self) -> str:
        return self.settings.anthropic_base_url.rstrip("/")

    def credentials(self) -> list[tuple[bytes, bytes]]:
        """The operator's credential, as the API expects it."""
        if self.settings.anthropic_api_key:
            return [(b"x-api-key", self.settings.anthropic_api_key.encode())]
        if self.settings.anthropic_auth_token:
            return [(b"authorization", f"Bearer {self.settings.anthropic_auth_token}".encode())]
        return []

    async def open(self, *, user_id: str, conversation_id: int, uid: int | None) -> Channel:
        """A new channel: its socket listening (only `uid`, or the server's user, may connect
        to it) and its token."""
        if self._folder is None:
            self._folder = await asyncio.to_thread(_private_folder)
        channel = Channel(
            user_id=user_id,
            conversation_id=conversation_id,
            token="parley-relay-" + secrets.token_urlsafe(32),
            socket=self._folder / f"{next(self._ids)}.sock",
        )
        channel.server = await asyncio.start_unix_server(
            lambda r, w: self._connection(channel, r, w), path=str(channel.socket)
        )
        await asyncio.to_thread(_only_for, channel.socket, uid)
        self._channels.add(channel)
        return channel

    async def close(self, channel: Channel) -> None:
        """The session's process is gone: its token works nowhere any more."""
        channel.open = False
        self._channels.discard(channel)
        if channel.server is not None:
            channel.server.close()
        for writer in list(channel.writers):
            writer.close()
        await asyncio.to_thread(_remove, channel.socket)

    async def shutdown(self) -> None:
        for channel in list(self._channels):
            await self.close(channel)
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._folder is not None:
            await asyncio.to_thread(shutil.rmtree, self._folder, True)
            self._folder = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(connect=30.0, read=600.0, write=60.0, pool=30.0)
            )
        return self._client

    # -- one connection from a sandbox ---------------------------------------------------

    async def _connection(
        self, channel: Channel, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if len(channel.writers) >= MAX_CONNECTIONS or not channel.open:
            writer.close()
            return
        channel.writers.add(writer)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        try:
            while True:
                request = await self._request(conn, reader)
                if request is None:
                    break
                head, body = request
                await self._answer(channel, conn, writer, head, body)
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    break
                conn.start_next_cycle()
        except h11.RemoteProtocolError as exc:  # not HTTP/1.1, or too large: said, then closed
            if conn.our_state is h11.SEND_RESPONSE:
                status, data = _error(exc.error_status_hint, "invalid_request_error", str(exc))
                with contextlib.suppress(Exception):
                    await self._send_whole(conn, writer, status, data)
        except (h11.ProtocolError, ConnectionError, httpx.HTTPError):
            pass  # the sandbox hung up (an interrupt), or the API did mid-answer
        except Exception:
            log.exception("the model relay failed on a request")
        finally:
            channel.writers.discard(writer)
            writer.close()

    async def _request(
        self, conn: h11.Connection, reader: asyncio.StreamReader
    ) -> tuple[h11.Request, bytes] | None:
        head: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                try:
                    async with asyncio.timeout(IDLE_SECONDS):
                        data = await reader.read(_CHUNK)
                except TimeoutError:
                    return None
                conn.receive_data(data)
                if not data and head is None:
                    return None
                continue
            if isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_BODY:
                    raise h11.RemoteProtocolError("request too large", error_status_hint=413)
            elif isinstance(event, h11.EndOfMessage) and head is not None:
                return head, bytes(body)
            elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                return None

    async def _answer(
        self,
        channel: Channel,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        head: h11.Request,
        body: bytes,
    ) -> None:
        # The target as sent, split only at "?": no absolute or "//host" form, no decoding.
        path, _, query = head.target.decode("latin-1").partition("?")
        refusal = None
        if not channel.accepts(presented_token(list(head.headers))):
            refusal = _error(401, "authentication_error", "Not this session's relay token")
        elif head.method != b"POST" or path not in ALLOWED:
            refusal = _error(404, "not_found_error", "The model relay passes on messages only")
        if refusal is not None:
            status, data = refusal
            await self._send_whole(conn, writer, status, data)
            return
        headers = [(n, v) for n, v in head.headers if n.lower() not in _REQUEST_DROPPED]
        headers += [(b"accept-encoding", b"identity"), *self.credentials()]
        url = self.upstream + path + (f"?{query}" if query else "")
        try:
            upstream = await self._http().send(
                self._http().build_request("POST", url, headers=headers, content=body),
                stream=True,
            )
        except httpx.HTTPError as exc:
            log.warning("the model relay could not reach %s: %s", self.upstream, exc)
            status, data = _error(502, "api_error", "The model relay could not reach the API")
            await self._send_whole(conn, writer, status, data)
            return
        await self._stream(channel, conn, writer, upstream, counted=path == "/v1/messages")

    async def _stream(
        self,
        channel: Channel,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        upstream: httpx.Response,
        *,
        counted: bool,
    ) -> None:
        kind = upstream.headers.get("content-type", "")
        meter = usage.Meter(streaming=kind.startswith("text/event-stream"))
        counting = counted and upstream.status_code == 200
        try:
            headers = [
                (n, v) for n, v in upstream.headers.raw if n.lower() not in _RESPONSE_DROPPED
            ]
            writer.write(conn.send(h11.Response(status_code=upstream.status_code, headers=headers)))
            async for chunk in upstream.aiter_bytes():
                if counting:
                    meter.feed(chunk)
                writer.write(conn.send(h11.Data(data=chunk)))
                await writer.drain()
            writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()
        finally:
            await upstream.aclose()
            if counting:
                await self._count(channel, meter.tokens())

    async def _count(self, channel: Channel, tokens: usage.Tokens) -> None:
        if tokens.empty:
            return
        try:
            await usage.add(
                self.db,
                user_id=channel.user_id,
                conversation_id=channel.conversation_id,
                tokens=tokens,
            )
        except Exception:  # the answer went through; only its count is lost
            log.exception("could not record the model usage of a work session")

    @staticmethod
    async def _send_whole(
        conn: h11.Connection, writer: asyncio.StreamWriter, status: int, data: bytes
    ) -> None:
        headers = [("content-type", "application/json"), ("content-length", str(len(data)))]
        writer.write(conn.send(h11.Response(status_code=status, headers=headers)))
        writer.write(conn.send(h11.Data(data=data)))
        writer.write(conn.send(h11.EndOfMessage()))
        await writer.drain()
