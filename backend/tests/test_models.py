"""The row records read what the tables hold: a column added to a table (models.py) without
its record, or the reverse, fails here."""

from __future__ import annotations

import pytest

from parley.conversations import ConversationRecord
from parley.messages.store import StoredMessage
from parley.models import Conversation, Message, Task
from parley.tasks import TaskRecord

pytestmark = pytest.mark.unit


def _columns(table: type) -> list[str]:
    return [c.name for c in table.__table__.columns]  # type: ignore[attr-defined]


def test_the_message_and_task_records_are_their_tables():
    # Records are their wire shape (pydantic) plus the columns the wire never shows.
    assert set(StoredMessage.model_fields) == set(_columns(Message))
    # A task record is its wire shape (pydantic) plus the columns the wire never shows.
    assert set(TaskRecord.model_fields) == set(_columns(Task))


def test_the_conversation_record_is_its_tables_public_columns():
    names = list(ConversationRecord.model_fields)
    assert set(names) <= set(_columns(Conversation))
    assert set(_columns(Conversation)) - set(names) == {"turn_id", "turn_expires_at"}
