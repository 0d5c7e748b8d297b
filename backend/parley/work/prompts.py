"""What a work session is given and gives back: the prompts it answers, a stored decision it
resumes with, and how it ends (`Ended`, `Parked`, or `SessionFailed` while it runs)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from claude_agent_sdk import ResultMessage

from parley.events import Emit
from parley.models import RunStatus
from parley.questions.words import Decision

# Stored, with `meta.prompts`, for the person's prompts a session ends without answering
# (when no error of its own says why), by how it ended.
UNANSWERED = {
    RunStatus.completed: "Ended before answering: the work session was ended.",
    RunStatus.cancelled: "The server shut down before answering; send the message again.",
    RunStatus.timed_out: "The work session ended after being idle before answering.",
}


class SessionFailed(Exception):
    """The process could not start, or died: the run fails with this message."""


@dataclass(frozen=True)
class Ended:
    """The session is over: its process is gone and its run ended as `status`."""

    status: RunStatus
    error: str | None


@dataclass(frozen=True)
class Parked:
    """A tool call waits for the person's answer: the process is gone, the call is kept."""

    deferred: dict[str, Any]


Outcome = Ended | Parked


@dataclass
class Prompt:
    """One prompt and whoever follows it: the turn runner attaches its `emit` to see the
    prompt's events; events from before it attached wait in the backlog (stored messages
    only: live text before that reached the watchers, and is stored anyway)."""

    text: str
    # The person's stored message this prompt is (None: a prompt of no stored message).
    message_id: int | None = None
    future: asyncio.Future[ResultMessage] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    listener: Emit | None = None
    backlog: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Set by Stop: the interrupted prompt's result is a stop the person asked for, not a failure.
    stopped: bool = False
    # An error of this prompt is stored already: its failed result must not repeat it.
    reported: bool = False
    # The tool calls it ran (chat's shape), set with its result.
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        if self.listener is not None:
            self.listener(event, data)
        else:
            self.backlog.append((event, data))

    def attach(self, emit: Emit) -> None:
        for event, data in self.backlog:
            emit(event, data)
        self.backlog.clear()
        self.listener = emit

    def echo(self, other: Prompt) -> None:
        """`other` is the same message, answered as this prompt: its events (unless someone
        follows this one already) and its outcome."""
        if self.listener is None:
            self.attach(other.publish)

        def done(future: asyncio.Future[ResultMessage]) -> None:
            if other.future.done():
                return
            if future.cancelled():
                other.future.cancel()
            elif (error := future.exception()) is not None:
                other.future.set_exception(error)
            else:
                other.tool_calls = self.tool_calls
                other.future.set_result(future.result())

        self.future.add_done_callback(done)


@dataclass
class Resume:
    """A stored decision to apply to a deferred tool call when the session resumes; the
    call's tool and input go on the reply's list of tool calls with the result it gets."""

    tool_use_id: str
    answer: Decision
    tool: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
