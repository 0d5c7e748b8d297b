"""The to-do list: one service used by the REST routes and the MCP tools alike."""

from __future__ import annotations

from typing import Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from parley.db import Database
from parley.errors import InvalidInput, NotFound
from parley.models import DESCRIPTION_MAX, TITLE_MAX, Task

TaskStatus = Literal["all", "pending", "completed"]
MAX_ID = 2**31 - 1  # tasks.id is a PostgreSQL integer


def clean_title(title: str) -> str:
    cleaned = " ".join(title.split()) if isinstance(title, str) else ""
    if not cleaned:
        raise InvalidInput("Task title must not be empty", details=[{"field": "title"}])
    if len(cleaned) > TITLE_MAX:
        raise InvalidInput(
            f"Task title must be at most {TITLE_MAX} characters", details=[{"field": "title"}]
        )
    _no_nul(cleaned, "title")
    return cleaned


def _no_nul(text: str, field: str) -> None:
    """PostgreSQL text cannot hold NUL: refuse it here rather than fail (a 500) on insert."""
    if "\x00" in text:
        raise InvalidInput(
            f"Task {field} must not contain NUL characters", details=[{"field": field}]
        )


def clean_description(description: str | None) -> str | None:
    if description is None:
        return None
    cleaned = description.strip()
    if len(cleaned) > DESCRIPTION_MAX:
        raise InvalidInput(
            f"Task description must be at most {DESCRIPTION_MAX} characters",
            details=[{"field": "description"}],
        )
    _no_nul(cleaned, "description")
    return cleaned or None


async def add_task(
    db: Database, *, user_id: str, title: str, description: str | None = None
) -> Task:
    task = Task(
        user_id=user_id, title=clean_title(title), description=clean_description(description)
    )
    async with db.transaction() as session:
        session.add(task)
    return task


async def list_tasks(db: Database, *, user_id: str, status: TaskStatus = "all") -> list[Task]:
    if status not in ("all", "pending", "completed"):
        raise InvalidInput(
            "status must be 'all', 'pending' or 'completed'", details=[{"field": "status"}]
        )
    query = sa.select(Task).where(col(Task.user_id) == user_id).order_by(col(Task.id))
    if status != "all":
        query = query.where(col(Task.completed) == (status == "completed"))
    async with db.session() as session:
        return list((await session.scalars(query)).all())


async def _owned(session: AsyncSession, *, user_id: str, task_id: int) -> Task:
    if not 1 <= task_id <= MAX_ID:  # no row has it; asking PostgreSQL would overflow (a 500)
        raise NotFound(f"Task {task_id} not found", task_id=task_id)
    task = await session.get(Task, task_id, with_for_update=True)
    if task is None or task.user_id != user_id:
        raise NotFound(f"Task {task_id} not found", task_id=task_id)
    return task


async def update_task(
    db: Database,
    *,
    user_id: str,
    task_id: int,
    title: str | None = None,
    description: str | None = None,
    completed: bool | None = None,
) -> Task:
    if title is None and description is None and completed is None:
        raise InvalidInput("Nothing to update: give a title, a description or completed")
    new_title = clean_title(title) if title is not None else None
    new_description = clean_description(description) if description is not None else None
    async with db.transaction() as session:
        task = await _owned(session, user_id=user_id, task_id=task_id)
        if new_title is not None:
            task.title = new_title
        if description is not None:
            task.description = new_description
        if completed is not None:
            task.completed = completed
        task.updated_at = sa.func.now()  # type: ignore[assignment]
        await session.flush()
        await session.refresh(task)
    return task


async def delete_task(db: Database, *, user_id: str, task_id: int) -> Task:
    async with db.transaction() as session:
        task = await _owned(session, user_id=user_id, task_id=task_id)
        await session.delete(task)
    return task
