"""The to-do list over REST, for the web UI's task panel. Tasks are addressed by their
per-user number."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Response

from parley import tasks
from parley.api.deps import CurrentUser, DbDep
from parley.api.errors import AUTHED, ERRORS
from parley.schemas import TaskCreate, TaskOut, TaskPatch

router = APIRouter(prefix="/api/{user_id}/tasks", tags=["tasks"])


@router.get("", response_model=list[TaskOut], responses=ERRORS(*AUTHED))
async def list_tasks(
    user_id: CurrentUser, db: DbDep, status: Literal["all", "pending", "completed"] = "all"
) -> list[TaskOut]:
    found = await tasks.list_tasks(db, user_id=user_id, status=status)
    return [TaskOut.model_validate(t) for t in found]


@router.post("", response_model=TaskOut, status_code=201, responses=ERRORS(*AUTHED))
async def add_task(body: TaskCreate, user_id: CurrentUser, db: DbDep) -> TaskOut:
    task = await tasks.add_task(db, user_id=user_id, title=body.title, description=body.description)
    return TaskOut.model_validate(task)


@router.patch("/{number}", response_model=TaskOut, responses=ERRORS(*AUTHED))
async def update_task(number: int, body: TaskPatch, user_id: CurrentUser, db: DbDep) -> TaskOut:
    task = await tasks.update_task(
        db,
        user_id=user_id,
        number=number,
        title=body.title,
        description=body.description,
        completed=body.completed,
    )
    return TaskOut.model_validate(task)


@router.delete("/{number}", status_code=204, responses=ERRORS(*AUTHED))
async def delete_task(number: int, user_id: CurrentUser, db: DbDep) -> Response:
    await tasks.delete_task(db, user_id=user_id, number=number)
    return Response(status_code=204)
