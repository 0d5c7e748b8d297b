"""The connection pool after a database restart: the first request after it still works."""

from __future__ import annotations

import asyncio


async def test_requests_succeed_right_after_every_connection_was_killed(server, db):
    headers = server.headers("alice")
    # Several requests at once leave several idle connections in the pool.
    responses = await asyncio.gather(
        *(server.client.get("/api/alice/tasks", headers=headers) for _ in range(6))
    )
    assert {r.status_code for r in responses} == {200}
    async with db.connection() as conn:
        killed = await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database() "
            "AND backend_type = 'client backend'"
        )
    assert killed >= 2
    for i in range(5):
        response = await server.chat("alice", f"add a task to after restart {i}")
        assert response.status_code == 200, response.text
    assert (await server.client.get("/api/health")).json()["database"] == "ok"
