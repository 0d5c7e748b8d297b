"""The one store of `tasks`: every statement on the table (and the call of `parley_add_task`,
parley/sql/add_task.sql, which numbers a new one) is here. Each runs on the caller's
connection; each is one statement, whose row locks order concurrent writes of one task.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from parley.models import Task, columns, from_row
from parley.schemas import TaskOut


class TaskRecord(TaskOut):
    """A row of `tasks`, validated by column name: the wire shape (`TaskOut`, one definition
    of the task's fields) plus what stays inside the server. `number` is the task's name for
    people, models and tools (per user); `id` is what person events name."""

    id: int
    user_id: str


def record(row: Any) -> TaskRecord:
    return from_row(TaskRecord, row)


COLUMNS = columns(Task, TaskRecord)

# One statement (parley/sql/add_task.sql): the counter's row lock hands concurrent adds of one
# user distinct numbers.
_ADD = f"SELECT {COLUMNS} FROM parley_add_task($1, $2, $3)"


async def add(
    conn: asyncpg.Connection, *, user_id: str, title: str, description: str | None
) -> TaskRecord:
    """A new task, numbered after the person's last; `title` and `description` are clean."""
    row = await conn.fetchrow(_ADD, user_id, title, description)
    return record(row)


_LIST = f"""SELECT {COLUMNS} FROM tasks WHERE user_id = $1
AND ($2::bool IS NULL OR completed = $2) ORDER BY number"""


async def of_person(
    conn: asyncpg.Connection, *, user_id: str, completed: bool | None
) -> list[TaskRecord]:
    """The person's tasks (only those `completed` or not, when given), by number."""
    return [record(row) for row in await conn.fetch(_LIST, user_id, completed)]


async def by_id(conn: asyncpg.Connection, *, user_id: str, ids: list[int]) -> list[TaskRecord]:
    rows = await conn.fetch(
        f"SELECT {COLUMNS} FROM tasks WHERE user_id = $1 AND id = ANY($2::bigint[])",
        user_id,
        ids,
    )
    return [record(r) for r in rows]


# One statement: the row lock it takes makes two concurrent updates apply one after the other.
_UPDATE = f"""UPDATE tasks SET
    title = coalesce($3, title),
    description = CASE WHEN $4 THEN $5 ELSE description END,
    completed = coalesce($6, completed),
    updated_at = now()
WHERE number = $1 AND user_id = $2
RETURNING {COLUMNS}"""


async def update(
    conn: asyncpg.Connection,
    *,
    user_id: str,
    number: int,
    title: str | None,
    set_description: bool,
    description: str | None,
    completed: bool | None,
) -> TaskRecord | None:
    """Change what is given (None leaves a field; `set_description` says whether
    `description` replaces the old one); None if the person has no such task."""
    row = await conn.fetchrow(
        _UPDATE, number, user_id, title, set_description, description, completed
    )
    return record(row) if row is not None else None


async def delete(conn: asyncpg.Connection, *, user_id: str, number: int) -> TaskRecord | None:
    """The task deleted, None if the person has no such task."""
    row = await conn.fetchrow(
        f"DELETE FROM tasks WHERE number = $1 AND user_id = $2 RETURNING {COLUMNS}",
        number,
        user_id,
    )
    return record(row) if row is not None else None
