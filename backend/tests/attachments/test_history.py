"""A message's attachments in the model's input, built from stored messages (no database)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from parley.assistant.history import history_items
from parley.assistant.offline import decide
from parley.attachments.store import AttachmentData
from parley.messages.store import StoredMessage

pytestmark = pytest.mark.unit

PNG = b"\x89PNG\r\n\x1a\n" + bytes(8)


def message(listed: list[dict[str, Any]]) -> StoredMessage:
    return StoredMessage(
        id=1,
        conversation_id=1,
        user_id="alice",
        role="user",
        author="alice",
        kind="message",
        content="look",
        tool_calls=None,
        error=False,
        reply_to=None,
        meta={"attachments": listed},
        created_at=datetime.now(UTC),
    )


FILES = {
    1: AttachmentData(1, "a.py", "text", "text/plain; charset=utf-8", b"print('hi')\n"),
    2: AttachmentData(2, "cat.png", "image", "image/png", PNG),
}
LISTED = [{"id": 1, "name": "a.py"}, {"id": 2, "name": "cat.png"}, {"id": 3, "name": "gone.txt"}]


def test_a_model_without_images_is_told_an_image_was_there_and_never_given_it():
    [item] = history_items([message(LISTED)], files=FILES, images=False)
    content = item["content"]  # type: ignore[typeddict-item]
    assert isinstance(content, str)
    assert content.startswith("look\n\n")
    assert "<attached file \"a.py\">\nprint('hi')\n\n</attached file>" in content
    assert '[image "cat.png" attached; this model does not take images]' in content
    assert '[attached file "gone.txt" is no longer available]' in content
    assert "base64" not in content


def test_a_model_with_images_gets_the_words_then_each_image():
    [item] = history_items([message(LISTED)], files=FILES, images=True)
    parts = item["content"]  # type: ignore[typeddict-item]
    assert [p["type"] for p in parts] == ["input_text", "input_image"]
    assert parts[1]["image_url"].startswith("data:image/png;base64,iVBORw0KGgo")


def test_malformed_meta_is_ignored_and_a_message_without_files_is_unchanged():
    broken = message(["x", {"id": "1"}, {"name": "no id"}])  # type: ignore[list-item]
    [item] = history_items([broken], files=FILES, images=True)
    assert item["content"].startswith("look")  # type: ignore[typeddict-item]
    [plain] = history_items([message([])])
    assert plain["content"] == "look"  # type: ignore[typeddict-item]


def test_the_offline_model_reads_a_file_only_when_no_command_was_given():
    items: Any = history_items([message(LISTED[:1])], files=FILES)
    [reply] = decide(items, set())
    assert "I received a.py (1 line)" in reply.content[0].text  # type: ignore[union-attr]
