"""The API's shapes show what the tables hold: a column added to a table (models.py) that its
public schema does not show, or a schema field no table has, fails here. Only the owner's id
(the path says it) and the server's own bookkeeping stay out of the wire shapes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel

from parley.models import AgentRun, Conversation, Message, Task, from_row
from parley.runs.runs import RunRecord
from parley.runs.schemas import RunOut
from parley.schemas import ConversationOut, MessageOut, RequestBody, TaskOut, task_json
from parley.tasks import TaskRecord

pytestmark = pytest.mark.unit


def _columns(table: type) -> set[str]:
    return {c.name for c in table.__table__.columns}  # type: ignore[attr-defined]


def _fields(schema: type[BaseModel]) -> set[str]:
    return set(schema.model_fields)


def test_a_message_shows_every_column_but_its_owner():
    # `xid` (the writing transaction, for the delivery reader) is bookkeeping, not content;
    # `shown` is true of every message read out (each read is of the shown branch).
    assert _fields(MessageOut) == _columns(Message) - {"user_id", "xid", "shown"}


def test_a_task_shows_every_column_but_its_owner_and_internal_id():
    assert _fields(TaskOut) == _columns(Task) - {"user_id", "id"}


def test_a_task_record_is_its_wire_shape_plus_what_stays_inside():
    """One definition: the record read from the row is `TaskOut` and the two columns the wire
    never shows, and what is sent of it is `TaskOut`'s fields alone."""
    assert issubclass(TaskRecord, TaskOut)
    assert _fields(TaskRecord) == _columns(Task)
    now = datetime.now(UTC)
    row = {c: None for c in _columns(Task)} | {
        "id": 7,
        "user_id": "alice",
        "number": 1,
        "title": "t",
        "completed": False,
        "created_at": now,
        "updated_at": now,
    }
    sent = task_json(from_row(TaskRecord, row))
    assert set(sent) == _fields(TaskOut)
    assert sent["number"] == 1


def test_a_run_as_read_is_its_wire_shape():
    assert RunRecord is RunOut


def test_a_conversation_shows_its_columns_and_then_what_is_derived():
    stored = _columns(Conversation) - {"user_id", "turn_id", "turn_expires_at"}
    derived = {"preview", "last_message_at", "unread", "work"}
    assert _fields(ConversationOut) == stored | derived


def test_a_run_shows_every_column_but_its_owner_and_process():
    # `waiting_until` (how long the run's current wait counts as activity) is the sweeper's.
    internal = {"user_id", "pid", "instance", "waiting_until"}
    assert _fields(RunOut) == _columns(AgentRun) - internal


def _models(base: type[BaseModel]) -> Iterator[type[BaseModel]]:
    for model in base.__subclasses__():
        yield model
        yield from _models(model)


def test_every_request_body_refuses_text_postgresql_cannot_store():
    """Each body a route takes is a `RequestBody`, whose check covers every string in it
    (fields left plain `str`, free-form objects' keys and values): a body model added
    without it fails here (tests/security/test_nul_bytes.py sends the NULs)."""
    from parley.api.app import create_app
    from tests.conftest import settings_for

    spec = create_app(settings_for(), database_url="postgresql://unused/x").openapi()
    bodies = {
        content["schema"]["$ref"].rsplit("/", 1)[1]
        for operations in spec["paths"].values()
        for operation in operations.values()
        for media, content in operation.get("requestBody", {}).get("content", {}).items()
        if media == "application/json"  # an attachment's upload is its raw bytes
    }
    models = {m.__name__: m for m in _models(BaseModel) if m.__module__.startswith("parley.")}
    assert bodies and bodies <= set(models)
    assert sorted(name for name in bodies if not issubclass(models[name], RequestBody)) == []
