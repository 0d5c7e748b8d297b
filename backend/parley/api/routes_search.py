"""GET /api/{user_id}/search: find conversations by title and by the words of their messages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from parley import search as search_service
from parley.api.deps import CurrentUser, DbDep
from parley.api.errors import AUTHED, ERRORS
from parley.schemas import SearchOut
from parley.stated import WORDS, stated

router = APIRouter(prefix="/api/{user_id}", tags=["conversations"])


@router.get("/search", response_model=SearchOut, responses=ERRORS(*AUTHED, 422))
async def search(
    user_id: CurrentUser,
    db: DbDep,
    q: Annotated[
        str,
        Query(max_length=search_service.QUERY_MAX, description="Words to find (not blank)"),
        stated(pattern=WORDS),
    ],
    limit: Annotated[int, Query(ge=1, le=search_service.LIMIT_MAX)] = 20,
) -> SearchOut:
    """The caller's conversations, one row each, best first: those whose messages have the
    words of `q`, each typed word the start of a word (several words all match, "a phrase" in
    quotes, -word excludes, `a or b`), or, when none has, words like them (a typo); and those
    whose title holds `q`. Each row carries its best-matching message's snippet and where the
    words are in it (`marks`). Only the caller's own conversations are ever searched."""
    return await search_service.search(db, user_id=user_id, query=q, limit=limit)
