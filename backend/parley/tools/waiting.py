"""What a tool call that waits on a person or another agent hands back to the layer around
it: the stored wait it started (a question, a delegation thread), instead of waiting itself.

The layer (`mcp_tasks.WaitingCalls`) puts a `Slot` in the call's context; a tool that finds
one records its wait there and returns at once, and the layer then answers the call as an
MCP task (a client that declared the tasks extension), or waits in-band as before. Without a
slot (no layer) the tool waits in-band itself.

Task ids name the stored wait and are sealed to the caller (an HMAC over person, agent and
wait with a key every instance derives from the shared auth secret): a task id is useless to
anyone else and cannot be made up, and any instance can read it after any restart.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum

from parley.auth import Caller
from parley.errors import NotFound


class WaitKind(StrEnum):
    question = "q"  # done when the question is answered, times out or is withdrawn
    thread = "t"  # done when the delegation closes or its child asks something new


@dataclass(frozen=True, slots=True)
class WaitRef:
    kind: WaitKind
    ref: int  # the question's message id, or the thread's id
    after: int = 0  # a thread: only a child's question newer than this message ends the wait


@dataclass(slots=True)
class Slot:
    tasks: bool  # the client takes a task instead of an in-band wait
    wait: WaitRef | None = None
    wait_s: float = 0.0  # how long an in-band wait may last (a question, without tasks)


_SLOT: ContextVar[Slot | None] = ContextVar("parley_waiting_slot", default=None)


def current_slot() -> Slot | None:
    return _SLOT.get()


@contextmanager
def slot_for_call(slot: Slot) -> Iterator[Slot]:
    token = _SLOT.set(slot)
    try:
        yield slot
    finally:
        _SLOT.reset(token)


def derive_key(secret: str, purpose: str) -> bytes:
    """A key of its own for each use of the shared secret (task ids, MCP request state)."""
    return hmac.new(secret.encode(), f"parley/{purpose}".encode(), hashlib.sha256).digest()


_TASK_ID = re.compile(r"^([qt])(\d{1,19})\.(\d{1,19})\.([A-Za-z0-9_-]{22})$")


class TaskIds:
    """Seal and open task ids: `<kind><ref>.<after>.<mac>`."""

    def __init__(self, secret: str) -> None:
        self.key = derive_key(secret, "mcp-task-id")

    def _mac(self, caller: Caller, body: str) -> str:
        message = f"{caller.user_id}\0{caller.agent or ''}\0{body}".encode()
        digest = hmac.new(self.key, message, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def seal(self, caller: Caller, wait: WaitRef) -> str:
        body = f"{wait.kind.value}{wait.ref}.{wait.after}"
        return f"{body}.{self._mac(caller, body)}"

    def open(self, caller: Caller, task_id: str) -> WaitRef:
        """The wait a task id names, if this caller sealed it; else 404 (as for any
        object of someone else's)."""
        found = _TASK_ID.fullmatch(task_id) if isinstance(task_id, str) else None
        if found is None:
            raise NotFound("Task not found", task_id=str(task_id)[:100])
        kind, ref, after, mac = found.groups()
        body = f"{kind}{ref}.{after}"
        if not hmac.compare_digest(mac, self._mac(caller, body)):
            raise NotFound("Task not found", task_id=task_id)
        return WaitRef(WaitKind(kind), int(ref), int(after))
