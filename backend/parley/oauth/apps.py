"""Connected apps: the OAuth clients a person allowed to act as one of their agents, listed
beside agent keys and revoked the same way (deleting the row deletes its tokens, so the
next call is refused by every instance within the credential cache's staleness)."""

from __future__ import annotations

from pydantic import ConfigDict

from parley.db import Database, retry_on_reconnect
from parley.errors import NotFound

from . import store
from .consent import client_host
from .schemas import ConnectedAppOut


class AppRecord(ConnectedAppOut):
    """A connected app as listed: the wire shape."""

    model_config = ConfigDict(frozen=True)


@retry_on_reconnect
async def listed(db: Database, *, user_id: str) -> list[AppRecord]:
    async with db.connection() as conn:
        rows = await store.grants_of(conn, user_id=user_id)
    return [
        AppRecord(
            id=r.id,
            agent=r.agent,
            client_id=r.client_id,
            client_name=r.client_name,
            client_host=client_host(r.client_id, r.redirect_uri),
            created_at=r.created_at,
            last_used_at=r.last_used_at,
        )
        for r in rows
    ]


async def revoke(db: Database, *, user_id: str, app_id: int) -> None:
    if not 1 <= app_id < 2**63:  # ids are bigints
        raise NotFound("No such connected app")
    async with db.connection() as conn:
        found = await store.delete_grant_of(conn, user_id=user_id, grant_id=app_id)
    if not found:
        raise NotFound("No such connected app")
