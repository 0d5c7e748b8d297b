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
- consecutive assistant messages are folded into one; a leading assistant part is dropped;
- a message's attachments (`meta.attachments`, their bytes in `files`) go with it: a text
  file as its text (the first FILE_CHARS characters) after the message, between markers
  that name it; an image as an image part when the model takes images, else a line saying
  it was not shown; a file that is gone (its conversation was deleted) as a line saying so.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from typing import Any

from agents.items import TResponseInputItem

from parley.attachments.store import AttachmentData
from parley.messages.store import StoredMessage
from parley.models import Role

FAILED_NOTE = "(My reply to this failed before I could answer.)"
UNANSWERED_NOTE = "(No reply was stored for this message.)"
FILE_CHARS = 20_000  # of each attached text file given to the model


def file_block(name: str, text: str) -> str:
    """An attached text file as the model reads it (the offline model finds it by this)."""
    if len(text) > FILE_CHARS:
        text = (
            text[:FILE_CHARS] + f"\n[... cut: the file has {len(text)} characters,"
            f" the first {FILE_CHARS} are shown]"
        )
    return f'<attached file "{name}">\n{text}\n</attached file>'


def _attached(
    message: StoredMessage, files: Mapping[int, AttachmentData], images: bool
) -> tuple[list[str], list[str]]:
    """The message's attachments as (text blocks, image data URLs)."""
    blocks: list[str] = []
    urls: list[str] = []
    for entry in (message.meta or {}).get("attachments") or ():
        if not isinstance(entry, dict):
            continue
        found = files.get(entry.get("id"))  # type: ignore[arg-type]
        name = str(entry.get("name", "attachment"))
        if found is None:
            blocks.append(f'[attached file "{name}" is no longer available]')
        elif found.kind == "text":
            blocks.append(file_block(found.name, found.data.decode("utf-8-sig", "replace")))
        elif images:
            encoded = base64.b64encode(found.data).decode()
            urls.append(f"data:{found.content_type};base64,{encoded}")
        else:
            blocks.append(f'[image "{name}" attached; this model does not take images]')
    return blocks, urls


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


def history_items(
    history: Sequence[StoredMessage],
    *,
    files: Mapping[int, AttachmentData] | None = None,
    images: bool = False,
) -> list[TResponseInputItem]:
    """Stored messages, oldest first, as the model's input for the next reply."""
    files = files or {}
    messages = list(history)
    while messages and messages[-1].error:  # a retry: the failed attempt is not history
        messages.pop()
    # One entry per side's turn: (side, tool items, texts, image data URLs).
    turns: list[tuple[str, list[TResponseInputItem], list[str], list[str]]] = []
    for message in messages:
        if message.role == Role.assistant.value:
            side, text = "assistant", FAILED_NOTE if message.error else message.content
        elif message.role == Role.user.value:
            side, text = "user", message.content
        else:
            side, text = "user", f"[{message.author or message.role}] {message.content}"
        tools = _tool_items(message) if side == "assistant" else []
        blocks, urls = _attached(message, files, images) if side == "user" else ([], [])
        text = "\n\n".join([text, *blocks])
        if turns and turns[-1][0] == side == "assistant":
            turns[-1][1].extend(tools)
            turns[-1][2].append(text)
        else:
            if turns and turns[-1][0] == side == "user":
                turns.append(("assistant", [], [UNANSWERED_NOTE], []))
            turns.append((side, tools, [text], urls))
    while turns and turns[0][0] == "assistant":
        turns.pop(0)
    items: list[TResponseInputItem] = []
    for side, tools, texts, urls in turns:
        if len(texts) > 1 and FAILED_NOTE in texts:  # a retry answered it after all
            texts = [t for t in texts if t != FAILED_NOTE]
        items.extend(tools)
        joined = "\n\n".join(texts)
        entry: Any = {"role": side, "content": joined}
        if urls:
            entry["content"] = [
                {"type": "input_text", "text": joined},
                *({"type": "input_image", "image_url": url, "detail": "auto"} for url in urls),
            ]
        items.append(entry)
    return items
