"""Pure ASGI middleware: refuse oversized bodies before reading them, and one JSON error
shape for every response, including those Parley does not write itself (the MCP SDK's
plain-text refusals, say)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from parley.api.errors import status_code_and_text


def error_body(status: int, code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


async def send_error(send: Send, status: int, code: str, message: str, *, close: bool) -> None:
    """A complete JSON error response; `close` ends the connection after it, which is how
    a server stops reading a body it refused."""
    body = error_body(status, code, message)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


@dataclass(frozen=True)
class Upload:
    """The paths whose body is a file, capped at `max_bytes` instead of the body limit;
    `refusal` is the (code, message) of a larger one."""

    path: re.Pattern[str]
    max_bytes: int
    refusal: tuple[str, str]


class BodyLimit:
    """At most `max_bytes` of request body. A declared Content-Length over the cap is
    refused before the app runs and before a byte of the body is read; a body without one
    (chunked) is counted as it arrives and refused the moment it passes the cap. Either
    way the 413 closes the connection, so the rest of the body is never read, and the app
    sees a disconnected client."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, uploads: Upload | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.uploads = uploads

    def _message(self) -> str:
        return f"The request body is larger than {self.max_bytes} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.uploads is not None and self.uploads.path.fullmatch(scope["path"]):
            # An upload's own route counts its body against its own cap (and says so in
            # its own words); a declared length over that cap is refused here, unread.
            declared = Headers(scope=scope).get("content-length")
            if (
                declared is not None
                and declared.isdigit()
                and int(declared) > self.uploads.max_bytes
            ):
                code, message = self.uploads.refusal
                await send_error(send, 413, code, message, close=True)
                return
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        if declared is None and "transfer-encoding" not in headers:
            # No body can follow (HTTP/1.1 framing): nothing to count, and a long stream's
            # every write skips this layer.
            await self.app(scope, receive, send)
            return
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await send_error(send, 413, "body_too_large", self._message(), close=True)
            return
        received = 0
        refused = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    refused = True
                    if not started:
                        await send_error(send, 413, "body_too_large", self._message(), close=True)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the response; whatever the app says after it is moot
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counted_receive, guarded_send)


class JsonErrors:
    """Rewrites an error response that is not JSON into `{"error": {"code", "message"}}`,
    keeping its status and headers. JSON errors pass untouched (Parley's own, and the MCP
    SDK's JSON-RPC errors, which MCP clients read)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] | None = None
        chunks: list[bytes] = []

        async def rewriting_send(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if message["status"] >= 400 and not _is_json(message):
                    start = dict(message)
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            status = start["status"]
            text = b"".join(chunks).decode("utf-8", "replace")
            body = error_body(status, *status_code_and_text(status, text))
            kept = [
                (name, value)
                for name, value in start.get("headers", [])
                if name.lower() not in (b"content-type", b"content-length")
            ]
            headers = [
                *kept,
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ]
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, rewriting_send)


def _is_json(start: Message) -> bool:
    for name, value in start.get("headers", []):
        if name.lower() == b"content-type":
            media = value.split(b";")[0].strip().lower()
            return media == b"application/json" or media.endswith(b"+json")
    return False
