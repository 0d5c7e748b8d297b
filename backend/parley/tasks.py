"""The to-do list: one service used by the REST routes and the MCP tools alike."""

from __future__ import annotations

from typing import Any, Literal

from parley.db import Database, retry_on_reconnect
from parley.errors import InvalidInput, NotFound
from parley.models import DESCRIPTION_MAX, MAX_INT, TASK_TITLE_MAX, Task, columns, from_row
from parley.schemas import TaskOut
from parley.text import clean

TaskStatus = Literal["all", "pending", "completed"]
MAX_NUMBER = MAX_INT  # tasks.number is a PostgreSQL integer


class TaskRecord(TaskOut):
    """A row of `tasks`, validated by column name: the wire shape (`TaskOut`, one definition
    of the task's fields) plus what stays inside the server. `number` is the task's name for
    people, models and tools (per user); `id` is what person events name."""

    id: int
    user_id: str


def record(row: Any) -> TaskRecord:
    return from_row(TaskRecord, row)


COLUMNS = columns(Task, TaskRecord)


def clean_title(title: str) -> str:
    return clean(title, field="title", label="Task title", max_chars=TASK_TITLE_MAX, one_line=True)


def clean_description(description: str | None) -> str | None:
    if description is None or not description.strip():
        return None
    return clean(
        description, field="description", label="Task description", max_chars=DESCRIPTION_MAX
    )


# One statement (parley/sql/add_task.sql): the counter's row lock hands concurrent adds of one
# user distinct numbers.
_ADD = f"SELECT {COLUMNS} FROM parley_add_task($1, $2, $3)"


async def add_task(
    db: Database, *, user_id: str, title: str, description: str | None = None
) -> TaskRecord:
    async with db.connection() as conn:
        row = await conn.fetchrow(_ADD, user_id, clean_title(title), clean_description(description))
    return record(row)


_LIST = f"""SELECT {COLUMNS} FROM tasks WHERE user_id = $1
AND ($2::bool IS NULL OR completed = $2) ORDER BY number"""


@retry_on_reconnect
async def list_tasks(db: Database, *, user_id: str, status: TaskStatus = "all") -> list[TaskRecord]:
    if status not in ("all", "pending", "completed"):
        raise InvalidInput(
            "status must be 'all', 'pending' or 'completed'", details=[{"field": "status"}]
        )
    completed = None if status == "all" else status == "completed"
    async with db.connection() as conn:
        rows = await conn.fetch(_LIST, user_id, completed)
    return [record(row) for row in rows]


@retry_on_reconnect
async def tasks_by_id(db: Database, *, user_id: str, ids: list[int]) -> list[TaskRecord]:
    """The person's tasks among `ids` (internal ids, as a person event names them)."""
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {COLUMNS} FROM tasks WHERE user_id = $1 AND id = ANY($2::bigint[])",
            user_id,
            ids,
        )
    return [record(r) for r in rows]


def _not_found(number: int) -> NotFound:
    return NotFound(f"Task {number} not found", number=number)


def _check_number(number: int) -> None:
    if not 1 <= number <= MAX_NUMBER:  # no row has it; asking PostgreSQL would overflow
        raise _not_found(number)


# One statement: the row lock it takes makes two concurrent updates apply one after the other.
_UPDATE = f"""UPDATE tasks SET
    title = coalesce($3, title),
    description = CASE WHEN $4 THEN $5 ELSE description END,
    completed = coalesce($6, completed),
    updated_at = now()
WHERE number = $1 AND user_id = $2
RETURNING {COLUMNS}"""


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
        row = await conn.fetchrow(
            _UPDATE,
            number,
            user_id,
            new_title,
            description is not None,
            new_description,
            completed,
        )
    if row is None:
        raise _not_found(number)
    return record(row)


async def delete_task(db: Database, *, user_id: str, number: int) -> TaskRecord:
    _check_number(number)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"DELETE FROM tasks WHERE number = $1 AND user_id = $2 RETURNING {COLUMNS}",
            number,
            user_id,
        )
    if row is None:
        raise _not_found(number)
    return record(row)
