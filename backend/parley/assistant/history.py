"""The stored conversation as model input: always well-formed, whatever happened in it.

Rules, so that any OpenAI-compatible server accepts it (some chat templates reject two
`user` or two `assistant` messages in a row, or a history that starts with the assistant):
- a reply's tool calls are replayed before its text as function-call and function-call-output
  items, so the model sees what it did (the ids of the tasks it created, say);
- a failed reply becomes a short assistant note (its tool calls still replayed), unless it is
  the last thing in the history: a retried turn ends at the person's message again;
- messages from agents and the system speak as the user, prefixed with their author;
- two user-side messages in a row (the first never got its reply: a crash, say) get a
  short assistant note between them, so each stays its own turn;
- consecutive assistant messages are folded into one; a leading assistant part is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agents.items import TResponseInputItem

from parley.messages.store import StoredMessage
from parley.models import Role

FAILED_NOTE = "(My reply to this failed before I could answer.)"
UNANSWERED_NOTE = "(No reply was stored for this message.)"


def _tool_items(message: StoredMessage) -> list[TResponseInputItem]:
    items: list[TResponseInputItem] = []
    for index, record in enumerate(message.tool_calls or ()):
        call_id = f"call_{message.id}_{index}"
        items.append(
            {
                "type": "function_call",
                "call_id": call_id,
                "name": str(record.get("tool", "unknown")),
                "arguments": json.dumps(record.get("parameters") or {}),
            }
        )
        items.append(
            {
                "type": "function_call_output",
                "call_id": call_id,
                "output": json.dumps(record.get("result")),
            }
        )
    return items


def history_items(history: Sequence[StoredMessage]) -> list[TResponseInputItem]:
    """Stored messages, oldest first, as the model's input for the next reply."""
    messages = list(history)
    while messages and messages[-1].error:  # a retry: the failed attempt is not history
        messages.pop()
    # One entry per side's turn: (side, tool items, texts).
    turns: list[tuple[str, list[TResponseInputItem], list[str]]] = []
    for message in messages:
        if message.role == Role.assistant.value:
            side, text = "assistant", FAILED_NOTE if message.error else message.content
        elif message.role == Role.user.value:
            side, text = "user", message.content
        else:
            side, text = "user", f"[{message.author or message.role}] {message.content}"
        tools = _tool_items(message) if side == "assistant" else []
        if turns and turns[-1][0] == side == "assistant":
            turns[-1][1].extend(tools)
            turns[-1][2].append(text)
        else:
            if turns and turns[-1][0] == side == "user":
                turns.append(("assistant", [], [UNANSWERED_NOTE]))
            turns.append((side, tools, [text]))
    while turns and turns[0][0] == "assistant":
        turns.pop(0)
    items: list[TResponseInputItem] = []
    for side, tools, texts in turns:
        if len(texts) > 1 and FAILED_NOTE in texts:  # a retry answered it after all
            texts = [t for t in texts if t != FAILED_NOTE]
        items.extend(tools)
        entry: Any = {"role": side, "content": "\n\n".join(texts)}
        items.append(entry)
    return items
