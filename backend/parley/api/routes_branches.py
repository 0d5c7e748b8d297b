"""A chat's branches: where the shown branch forks (the "n of m" switchers), and switching."""

from __future__ import annotations

from fastapi import APIRouter

from parley.api.deps import DbDep, PersonUser
from parley.api.errors import AUTHED, ERRORS
from parley.chat import branches
from parley.schemas import BranchesOut, BranchOut, BranchRequest

router = APIRouter(prefix="/api/{user_id}/conversations", tags=["conversations"])


def _out(found: list[tuple[int, list[int]]], version: int | None = None) -> BranchesOut:
    return BranchesOut(
        version=version,
        branches=[BranchOut(message_id=shown, siblings=ids) for shown, ids in found],
    )


@router.get("/{conversation_id}/branches", response_model=BranchesOut, responses=ERRORS(*AUTHED))
async def list_branches(conversation_id: int, user_id: PersonUser, db: DbDep) -> BranchesOut:
    """Each message on the shown branch that has siblings (other edits of it, other replies to
    its question), with their ids, oldest first."""
    return _out(await branches.forks(db, user_id=user_id, conversation_id=conversation_id))


@router.post(
    "/{conversation_id}/branch", response_model=BranchesOut, responses=ERRORS(*AUTHED, 409, 422)
)
async def show_branch(
    conversation_id: int, body: BranchRequest, user_id: PersonUser, db: DbDep
) -> BranchesOut:
    """Show the branch of `message_id` (a sibling of a shown message) from now on: in every
    tab, and for the next turn's history. 409 while a reply is being written; nothing moves
    when it is shown already."""
    version = await branches.show(
        db, user_id=user_id, conversation_id=conversation_id, message_id=body.message_id
    )
    found = await branches.forks(db, user_id=user_id, conversation_id=conversation_id)
    return _out(found, version)
