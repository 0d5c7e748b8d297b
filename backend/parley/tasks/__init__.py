"""The to-do list: one service used by the REST routes and the MCP tools alike."""

from __future__ import annotations

from typing import Literal

from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.models import DESCRIPTION_MAX, MAX_INT, TASK_TITLE_MAX
from parley.tasks import store
from parley.tasks.store import TaskRecord
from parley.text import clean

__all__ = ["TaskRecord"]

TaskStatus = Literal["all", "pending", "completed"]
MAX_NUMBER = MAX_INT  # tasks.number is a PostgreSQL integer


def clean_title(title: str) -> str:
    return clean(title, field="title", label="Task title", max_chars=TASK_TITLE_MAX, one_line=True)


def clean_description(description: str | None) -> str | None:
    if description is None or not description.strip():
        return None
    return clean(
        description, field="description", label="Task description", max_chars=DESCRIPTION_MAX
    )


async def add_task(
    db: Database, *, user_id: str, title: str, description: str | None = None
) -> TaskRecord:
    async with db.connection() as conn:
        return await store.add(
            conn,
            user_id=user_id,
            title=clean_title(title),
            description=clean_description(description),
        )


@retry_on_reconnect
async def list_tasks(db: Database, *, user_id: str, status: TaskStatus = "all") -> list[TaskRecord]:
    if status not in ("all", "pending", "completed"):
        raise InvalidInput(
            "status must be 'all', 'pending' or 'completed'", details=[{"field": "status"}]
        )
    completed = None if status == "all" else status == "completed"
    async with db.connection() as conn:
        return await store.of_person(conn, user_id=user_id, completed=completed)


@retry_on_reconnect
async def tasks_by_id(db: Database, *, user_id: str, ids: list[int]) -> list[TaskRecord]:
    """The person's tasks among `ids` (internal ids, as a person event names them)."""
    async with db.connection() as conn:
        return await store.by_id(conn, user_id=user_id, ids=ids)


def _not_found(number: int) -> NotFound:
    return NotFound(f"Task {number} not found", number=number)


def _check_number(number: int) -> None:
    if not 1 <= number <= MAX_NUMBER:  # no row has it; asking PostgreSQL would overflow
        raise _not_found(number)


async def update_task(
    db: Database,
    *,
    user_id: str,
    number: int,
    title: str | None = None,
    description: str | None = None,
    completed: bool | None = None,
) -> TaskRecord:
    """`description=""` clears it; None leaves it as it is."""
    if title is None and description is None and completed is None:
        raise InvalidInput("Nothing to update: give a title, a description or completed")
    new_title = clean_title(title) if title is not None else None
    new_description = clean_description(description) if description is not None else None
    _check_number(number)
    async with db.connection() as conn:
        updated = await store.update(
            conn,
            user_id=user_id,
            number=number,
            title=new_title,
            set_description=description is not None,
            description=new_description,
            completed=completed,
        )
    if updated is None:
        raise _not_found(number)
    return updated


async def delete_task(db: Database, *, user_id: str, number: int) -> TaskRecord:
    _check_number(number)
    async with db.connection() as conn:
        deleted = await store.delete(conn, user_id=user_id, number=number)
    if deleted is None:
        raise _not_found(number)
    return deleted
