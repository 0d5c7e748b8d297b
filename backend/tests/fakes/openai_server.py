"""A fake OpenAI-compatible Chat Completions server, on a real loopback port.

It answers from a script, one step per request: a text reply, tool calls (streamed as
argument deltas, like vLLM or llama.cpp do), an HTTP failure, or a hang. Like the chat
templates of Mistral or Gemma models on vLLM, it can refuse a history whose user and
assistant messages do not alternate (400). Every request body is kept for the test to read.
`GET /v1/models` lists `models` (or fails with `models_status`), and counts its calls.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.conftest import free_port, on_loopback


@dataclass
class Step:
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200  # anything else: fail with this status
    hang: bool = False  # stream a first word, then never finish


def say(text: str) -> Step:
    return Step(text=text)


def call(tool: str, **arguments: Any) -> Step:
    return Step(tool_calls=[(tool, arguments)])


def fail(status: int = 400) -> Step:
    return Step(status=status)


def hang(first_words: str = "Thinking") -> Step:
    return Step(text=first_words, hang=True)


def alternation_problem(messages: list[dict[str, Any]]) -> str | None:
    """What a strict chat template says about `messages`, or None if it accepts them: after
    an optional system message, user and plain assistant messages alternate, starting with
    the user (tool messages and assistant tool-call messages are not counted)."""
    expected = "user"
    for message in messages:
        role = message.get("role")
        if role in ("system", "tool") or (role == "assistant" and message.get("tool_calls")):
            continue
        if role != expected:
            return "Conversation roles must alternate user/assistant/user/assistant/..."
        expected = "assistant" if role == "user" else "user"
    return None


class FakeOpenAI:
    def __init__(self, *, strict_roles: bool = True) -> None:
        self.script: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.strict_roles = strict_roles
        self.hanging = asyncio.Event()  # set when a hang step has sent its first words
        self.base_url = ""
        self.models = ["fake-model", "fake-large", "fake-small"]
        self.models_status = 200
        self.models_hang = False  # never answer GET /v1/models
        self.models_calls = 0
        self.models_auth: list[str | None] = []  # each call's Authorization header

    def enqueue(self, *steps: Step) -> None:
        self.script.extend(steps)

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        if self.strict_roles and (problem := alternation_problem(body["messages"])):
            return JSONResponse({"error": {"message": problem, "type": "BadRequest"}}, 400)
        step = self.script.pop(0) if self.script else say("(the script is empty)")
        if step.status != 200:
            return JSONResponse({"error": {"message": "scripted failure"}}, step.status)
        if not body.get("stream"):
            return JSONResponse(_completion(step))
        return StreamingResponse(self._chunks(step), media_type="text/event-stream")

    async def _chunks(self, step: Step) -> AsyncIterator[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            data = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0}
            return f"data: {json.dumps({**data, 'model': 'fake', 'choices': [choice]})}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for index, word in enumerate(step.text.split(" ") if step.text else []):
            yield chunk({"content": word if index == 0 else " " + word})
        if step.hang:
            self.hanging.set()
            await asyncio.Event().wait()
        for index, (name, arguments) in enumerate(step.tool_calls):
            encoded = json.dumps(arguments)
            head = {"index": index, "id": f"call_{index}", "type": "function"}
            yield chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
            for start in range(0, len(encoded), 5):  # arguments arrive in pieces
                piece = {"index": index, "function": {"arguments": encoded[start : start + 5]}}
                yield chunk({"tool_calls": [piece]})
        yield chunk({}, "tool_calls" if step.tool_calls else "stop")
        yield "data: [DONE]\n\n"

    async def _models(self, request: Request) -> Response:
        self.models_calls += 1
        self.models_auth.append(request.headers.get("authorization"))
        if self.models_hang:
            await asyncio.Event().wait()
        if self.models_status != 200:
            return JSONResponse({"error": {"message": "scripted failure"}}, self.models_status)
        data = [{"id": name, "object": "model", "owned_by": "fake"} for name in self.models]
        return JSONResponse({"object": "list", "data": data})

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )


def _completion(step: Step) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
    if step.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for i, (name, arguments) in enumerate(step.tool_calls)
        ]
    finish = "tool_calls" if step.tool_calls else "stop"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@asynccontextmanager
async def running(fake: FakeOpenAI) -> AsyncIterator[FakeOpenAI]:
    """Serve `fake` on a loopback port; `fake.base_url` is what OPENAI_BASE_URL takes."""
    async with on_loopback(fake.app(), free_port(), force_exit=True) as base:
        fake.base_url = f"{base}/v1"
        yield fake
