"""A small fake of the Anthropic Messages API, for driving the real `claude` CLI offline.

It serves `POST /v1/messages` as server-sent events the way the real API streams them, from
a script of replies the test writes, and keeps every request it received so a test can
check what the CLI sent (the earlier turns of a conversation, a tool's result...).

Only the agent's own calls take scripted replies: a call that offers tools. The CLI's side
calls (titles, summaries: no tools) get a short text and are logged apart.

It runs on a thread with the standard library's HTTP server, independent of any event loop,
so a test (or a benchmark) can block, restart its app or its loop without stopping it.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Text:
    """Assistant text, streamed in `chunks` deltas, `delay` seconds apart."""

    text: str
    chunks: int = 1
    delay: float = 0.0


@dataclass
class ToolUse:
    name: str
    input: dict[str, Any]
    id: str = field(default_factory=lambda: "toolu_" + uuid.uuid4().hex[:20])


@dataclass
class Reply:
    """One model response: its blocks, in order. Ends the turn unless it uses a tool."""

    blocks: list[Text | ToolUse]


@dataclass
class Fail:
    """An HTTP error instead of a response (a 400 fails the prompt at once)."""

    status: int = 400
    message: str = "scripted failure"


# A reply made from the request when it comes (the tool results the CLI sent so far), the way
# a model reads a tool's result before choosing its next step. It runs on the server's thread
# for that request, so it may block (a test holding the model's turn while it restarts Parley).
Reactive = Callable[[dict[str, Any]], Reply | Fail]
Scripted = Reply | Fail | Reactive


def say(text: str, *, chunks: int = 1, delay: float = 0.0) -> Reply:
    return Reply([Text(text, chunks, delay)])


def echo(
    pattern: str, *, slow: str | None = None, chunks: int = 60, delay: float = 0.25
) -> Reactive:
    """A reply made from the person's latest turn: "echo <what `pattern` matched>" (so a
    test knows which prompt an answer is to); a turn that also says `slow` is answered
    in `chunks` pieces, `delay` seconds apart (a reply still under way)."""

    def reply(body: dict[str, Any]) -> Reply:
        turns = [m for m in body.get("messages", []) if m.get("role") == "user"]
        said = json.dumps(turns[-1].get("content", "")) if turns else ""
        found = re.findall(pattern, said)
        text = f"echo {found[-1] if found else '?'}"
        if slow and slow in said:
            return say(" ".join([text] * chunks), chunks=chunks, delay=delay)
        return say(text)

    return reply


def bash(command: str, *, then: str | None = None) -> Reply:
    blocks: list[Text | ToolUse] = [Text(then)] if then else []
    return Reply([*blocks, ToolUse("Bash", {"command": command, "description": command})])


class FakeAnthropic:
    def __init__(self) -> None:
        self._script: deque[Scripted] = deque()
        # Scripts of their own for the conversations that opened with a given prompt.
        self._keyed: dict[str, deque[Scripted]] = {}
        self.requests: list[dict[str, Any]] = []  # the agent's calls (with tools)
        self.side_requests: list[dict[str, Any]] = []
        # The credential and the path of every POST (x-api-key, else Authorization).
        self.credentials: list[str | None] = []
        self.paths: list[str] = []
        self.default: Scripted = say("(no scripted reply)")
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- script ------------------------------------------------------------------

    def script(self, *replies: Scripted) -> None:
        with self._lock:
            self._script.extend(replies)

    def script_for(self, prompt: str, *replies: Scripted) -> None:
        """Replies for the agent calls of a session whose first prompt contains `prompt`,
        kept apart from the shared script (so one test's steps never take another's); the
        last one answers every call after it."""
        with self._lock:
            self._keyed.setdefault(prompt, deque()).extend(replies)

    def _next(self, body: dict[str, Any]) -> Scripted:
        messages = body.get("messages") or [{}]
        opening = json.dumps(messages[0].get("content", ""))
        with self._lock:
            for prompt, replies in self._keyed.items():
                if prompt in opening:  # its last reply repeats: never the shared script's
                    return replies.popleft() if len(replies) > 1 else replies[0]
            return self._script.popleft() if self._script else self.default

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    # -- server ------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @contextlib.contextmanager
    def running(self) -> Iterator[FakeAnthropic]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                body = json.loads(raw or b"{}")
                with fake._lock:
                    fake.credentials.append(
                        self.headers.get("x-api-key") or self.headers.get("authorization")
                    )
                    fake.paths.append(self.path)
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 10})
                    return
                agent_call = bool(body.get("tools"))
                with fake._lock:
                    (fake.requests if agent_call else fake.side_requests).append(body)
                scripted = fake._next(body) if agent_call else say("Side reply")
                reply = scripted if isinstance(scripted, Reply | Fail) else scripted(body)
                if isinstance(reply, Fail):
                    self._json(
                        reply.status,
                        {
                            "type": "error",
                            "error": {"type": "invalid_request_error", "message": reply.message},
                        },
                    )
                    return
                if body.get("stream"):
                    self._stream(reply, body)
                else:
                    self._json(200, _message(reply, body))

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:12])
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:12])
                self.end_headers()
                self.close_connection = True
                try:
                    for event in _events(reply, body):
                        if isinstance(event, float):
                            time.sleep(event)
                            continue
                        name = event["type"]
                        self.wfile.write(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the CLI hung up (an interrupt)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._httpd.shutdown()
            self._httpd.server_close()
            thread.join(timeout=5)

    # -- what the CLI sent -----------------------------------------------------------

    def texts_sent(self, index: int = -1) -> str:
        """Everything the CLI put in one agent request's messages, as one string."""
        return json.dumps(self.requests[index].get("messages", []))


def _usage() -> dict[str, int]:
    return {
        "input_tokens": 12,
        "output_tokens": 5,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if any(isinstance(b, ToolUse) for b in reply.blocks) else "end_turn"


def _message(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for block in reply.blocks:
        if isinstance(block, Text):
            content.append({"type": "text", "text": block.text})
        else:
            content.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
    return {
        "id": "msg_" + uuid.uuid4().hex[:20],
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": content,
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(),
    }


def _events(reply: Reply, body: dict[str, Any]) -> Iterator[dict[str, Any] | float]:
    start = _message(reply, body) | {"content": [], "stop_reason": None}
    yield {"type": "message_start", "message": start}
    for index, block in enumerate(reply.blocks):
        if isinstance(block, Text):
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            }
            size = max(1, -(-len(block.text) // max(1, block.chunks)))
            for i in range(0, len(block.text), size):
                if block.delay and i:
                    yield block.delay
                yield {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": block.text[i : i + size]},
                }
        else:
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": block.id,
                    "name": block.name,
                    "input": {},
                },
            }
            yield {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.input)},
            }
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
        "usage": {"output_tokens": 5},
    }
    yield {"type": "message_stop"}


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results the CLI sent in one request, oldest first."""
    return [
        block
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def result_json(block: dict[str, Any]) -> dict[str, Any]:
    """What a tool returned (its JSON text) from the CLI's `tool_result` block; {} if not JSON."""
    content = block.get("content")
    texts = [content] if isinstance(content, str) else [c.get("text", "") for c in content or []]
    for text in texts:
        with contextlib.suppress(ValueError):
            found = json.loads(text)
            if isinstance(found, dict):
                return found
    return {}


def mcp_tool(server: str, tool: str, **arguments: Any) -> Reply:
    """The model calls an MCP server's tool, as Claude Code names it (`mcp__<server>__<tool>`)."""
    return Reply([ToolUse(f"mcp__{server}__{tool}", arguments)])
