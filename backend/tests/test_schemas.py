"""The API's shapes show what the tables hold: a column added to a table (models.py) that its
public schema does not show, or a schema field no table has, fails here. Only the owner's id
(the path says it) and the server's own bookkeeping stay out of the wire shapes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from parley.models import AgentRun, Conversation, Message, Task
from parley.runs.schemas import RunOut
from parley.schemas import ConversationOut, MessageOut, TaskOut

pytestmark = pytest.mark.unit


def _columns(table: type) -> set[str]:
    return {c.name for c in table.__table__.columns}  # type: ignore[attr-defined]


def _fields(schema: type[BaseModel]) -> set[str]:
    return set(schema.model_fields)


def test_a_message_shows_every_column_but_its_owner():
    # `xid` (the writing transaction, for the delivery reader) is bookkeeping, not content.
    assert _fields(MessageOut) == _columns(Message) - {"user_id", "xid"}


def test_a_task_shows_every_column_but_its_owner_and_internal_id():
    assert _fields(TaskOut) == _columns(Task) - {"user_id", "id"}


def test_a_conversation_shows_its_columns_and_then_what_is_derived():
    stored = _columns(Conversation) - {"user_id", "turn_id", "turn_expires_at"}
    derived = {"preview", "last_message_at", "unread", "work"}
    assert _fields(ConversationOut) == stored | derived


def test_a_run_shows_every_column_but_its_owner_and_process():
    # `waiting_until` (how long the run's current wait counts as activity) is the sweeper's.
    internal = {"user_id", "pid", "instance", "waiting_until"}
    assert _fields(RunOut) == _columns(AgentRun) - internal
