"""The to-do list: one service used by the REST routes and the MCP tools alike."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from parley.db import Database, idempotent
from parley.errors import InvalidInput, NotFound
from parley.models import DESCRIPTION_MAX, TITLE_MAX
from parley.text import storable

TaskStatus = Literal["all", "pending", "completed"]
MAX_ID = 2**31 - 1  # tasks.id is a PostgreSQL integer


@dataclass(slots=True)
class TaskRecord:
    id: int
    user_id: str
    title: str
    description: str | None
    completed: bool
    created_at: datetime
    updated_at: datetime


COLUMNS = "id, user_id, title, description, completed, created_at, updated_at"


def clean_title(title: str) -> str:
    cleaned = " ".join(title.split()) if isinstance(title, str) else ""
    if not cleaned:
        raise InvalidInput("Task title must not be empty", details=[{"field": "title"}])
    if len(cleaned) > TITLE_MAX:
        raise InvalidInput(
            f"Task title must be at most {TITLE_MAX} characters", details=[{"field": "title"}]
        )
    return storable(cleaned, field="title", label="Task title")


def clean_description(description: str | None) -> str | None:
    if description is None:
        return None
    cleaned = description.strip()
    if len(cleaned) > DESCRIPTION_MAX:
        raise InvalidInput(
            f"Task description must be at most {DESCRIPTION_MAX} characters",
            details=[{"field": "description"}],
        )
    return storable(cleaned, field="description", label="Task description") or None


async def add_task(
    db: Database, *, user_id: str, title: str, description: str | None = None
) -> TaskRecord:
    async with db.connection() as conn:
        row = await conn.fetchrow(
            "INSERT INTO tasks (user_id, title, description) VALUES ($1, $2, $3)"
            f" RETURNING {COLUMNS}",
            user_id,
            clean_title(title),
            clean_description(description),
        )
    return TaskRecord(*row)


@idempotent
async def list_tasks(db: Database, *, user_id: str, status: TaskStatus = "all") -> list[TaskRecord]:
    if status not in ("all", "pending", "completed"):
        raise InvalidInput(
            "status must be 'all', 'pending' or 'completed'", details=[{"field": "status"}]
        )
    completed = None if status == "all" else status == "completed"
    async with db.connection() as conn:
        rows = await conn.fetch(
            f"SELECT {COLUMNS} FROM tasks WHERE user_id = $1"
            " AND ($2::bool IS NULL OR completed = $2) ORDER BY id",
            user_id,
            completed,
        )
    return [TaskRecord(*row) for row in rows]


def _not_found(task_id: int) -> NotFound:
    return NotFound(f"Task {task_id} not found", task_id=task_id)


def _check_id(task_id: int) -> None:
    if not 1 <= task_id <= MAX_ID:  # no row has it; asking PostgreSQL would overflow (a 500)
        raise _not_found(task_id)


# One statement: the row lock it takes makes two concurrent updates apply one after the other.
_UPDATE = f"""UPDATE tasks SET
    title = coalesce($3, title),
    description = CASE WHEN $4 THEN $5 ELSE description END,
    completed = coalesce($6, completed),
    updated_at = now()
WHERE id = $1 AND user_id = $2
RETURNING {COLUMNS}"""


async def update_task(
    db: Database,
    *,
    user_id: str,
    task_id: int,
    title: str | None = None,
    description: str | None = None,
    completed: bool | None = None,
) -> TaskRecord:
    """`description=""` clears it; None leaves it as it is."""
    if title is None and description is None and completed is None:
        raise InvalidInput("Nothing to update: give a title, a description or completed")
    new_title = clean_title(title) if title is not None else None
    new_description = clean_description(description) if description is not None else None
    _check_id(task_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            _UPDATE,
            task_id,
            user_id,
            new_title,
            description is not None,
            new_description,
            completed,
        )
    if row is None:
        raise _not_found(task_id)
    return TaskRecord(*row)


async def delete_task(db: Database, *, user_id: str, task_id: int) -> TaskRecord:
    _check_id(task_id)
    async with db.connection() as conn:
        row = await conn.fetchrow(
            f"DELETE FROM tasks WHERE id = $1 AND user_id = $2 RETURNING {COLUMNS}",
            task_id,
            user_id,
        )
    if row is None:
        raise _not_found(task_id)
    return TaskRecord(*row)
