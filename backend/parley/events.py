"""What happens during a turn, as named events: the vocabulary the assistant, the turn runner
and the realtime streams share, so none of them depends on another for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Takes each event of a turn as it happens. Called on the event loop and must not block:
# it hands the event on (to a queue, to watchers), it does not await anyone.
Emit = Callable[[str, dict[str, Any]], None]

MESSAGE = "message"  # a stored message (data: the message's JSON)
DELTA = "delta"  # text of the reply being written: {"text"}
TOOL_CALL = "tool_call"  # {"call_id", "tool", "parameters"}
TOOL_RESULT = "tool_result"  # {"call_id", "tool", "result"}
DONE = "done"  # the turn's answer: {"conversation_id", "response", "tool_calls"}
ERROR = "error"  # the turn failed: {"error": {"code", "message", ...}}
# The reply being written is over: {"message_id"} of its stored copy, or null when nothing was
# stored. Its writer says so; a conversation's event stream sends it as `reply_end`.
TURN_END = "turn_end"
REPLY_END = "reply_end"

# Not stored: they describe the reply still being written, and go to every watcher.
LIVE = frozenset({DELTA, TOOL_CALL, TOOL_RESULT})
