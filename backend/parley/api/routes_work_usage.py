"""The model tokens a person's work sessions used, as Parley's model relay counted them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from parley.api.deps import CurrentUser, DbDep
from parley.api.errors import AUTHED, ERRORS
from parley.schemas import WorkUsageResponse
from parley.work import usage

router = APIRouter(prefix="/api/{user_id}/work", tags=["work"])


@router.get("/usage", response_model=WorkUsageResponse, responses=ERRORS(*AUTHED))
async def get_usage(user_id: CurrentUser, db: DbDep) -> Any:
    """Per conversation (the most recent first) and in all; a deleted conversation's stay,
    without a title: what was spent stays spent."""
    return WorkUsageResponse.of(await usage.of_person(db, user_id=user_id))
