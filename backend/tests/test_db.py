"""The connection pool after a database restart: the first request after it still works."""

from __future__ import annotations

import asyncio

from tests.conftest import eventually


async def _kill_connections(server, db) -> None:
    """What a database restart does to the server: every connection dies at once."""
    headers = server.headers("alice")
    # Several requests at once leave several idle connections in the server's pool.
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


async def test_turns_succeed_right_after_every_connection_was_killed(server, db):
    await _kill_connections(server, db)
    for i in range(5):
        response = await server.chat("alice", f"add a task to after restart {i}")
        assert response.status_code == 200, response.text
    assert (await server.client.get("/api/health")).json()["database"] == "ok"


async def test_reads_after_a_restart_are_answered_on_fresh_connections(server, db):
    await _kill_connections(server, db)
    for path in ("/api/alice/tasks", "/api/alice/conversations", "/api/alice/tasks"):
        response = await server.client.get(path, headers=server.headers("alice"))
        assert response.status_code == 200, response.text


async def test_a_write_on_a_dead_connection_is_a_clear_503_and_changes_nothing(server, db):
    """Adding a task is not safe to repeat blindly, so it is not retried: the caller is
    told, and the next attempt works. The write's connection dies mid-statement: it waits
    on a row lock this test holds, and its backend is killed while it waits."""
    headers = server.headers("alice")
    first = await server.client.post("/api/alice/tasks", json={"title": "a"}, headers=headers)
    assert first.status_code == 201, first.text
    async with db.connection() as holder, holder.transaction():
        await holder.execute("SELECT 1 FROM task_counters WHERE user_id = 'alice' FOR UPDATE")
        write = asyncio.create_task(
            server.client.post("/api/alice/tasks", json={"title": "b"}, headers=headers)
        )
        waiting: list[int] = []

        async def blocked() -> bool:
            # Asked on another connection: inside the holder's transaction PostgreSQL would
            # answer every poll from the snapshot of the first one.
            assert not write.done(), f"the write did not wait: {write.result().text}"
            async with db.connection() as watcher:
                waiting[:] = await watcher.fetch(
                    "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))",
                    holder_pid,
                )
            return len(waiting) == 1

        holder_pid = await holder.fetchval("SELECT pg_backend_pid()")
        await eventually(blocked, within=30)
        await holder.execute("SELECT pg_terminate_backend($1)", waiting[0]["pid"])
        refused = await write
    assert refused.status_code == 503, refused.text
    assert refused.json()["error"]["code"] == "database_unavailable"
    tasks = (await server.client.get("/api/alice/tasks", headers=headers)).json()
    assert [t["title"] for t in tasks] == ["a"]
    again = await server.client.post("/api/alice/tasks", json={"title": "b"}, headers=headers)
    assert again.status_code == 201, again.text
