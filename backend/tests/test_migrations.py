"""Alembic alone owns the schema: up from empty, down to empty, and safe to race."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from parley.migrate import downgrade, upgrade

PARLEY = str(Path(sys.executable).with_name("parley"))
TABLES = {"tasks", "conversations", "messages", "agent_runs", "questions", "user_events"}


@pytest.fixture
async def fresh_database(migrated: str) -> AsyncIterator[str]:
    """An empty database on the test server, dropped afterwards."""
    url = make_url(migrated)
    admin = create_async_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    name = f"parley_migrations_{os.getpid()}"
    async with admin.connect() as conn:
        await conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
        await conn.execute(sa.text(f"CREATE DATABASE {name}"))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as conn:
            await conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        await admin.dispose()


async def _tables(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                sa.text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            )
            return {r[0] for r in rows} - {"alembic_version"}
    finally:
        await engine.dispose()


async def test_upgrade_and_downgrade_on_an_empty_database(fresh_database):
    await asyncio.to_thread(upgrade, fresh_database)
    assert await _tables(fresh_database) == TABLES
    await asyncio.to_thread(downgrade, fresh_database)
    assert await _tables(fresh_database) == set()
    await asyncio.to_thread(upgrade, fresh_database)  # enum types were dropped too
    assert await _tables(fresh_database) == TABLES


async def test_several_instances_migrating_at_once_all_succeed(fresh_database):
    env = {**os.environ, "DATABASE_URL": fresh_database}
    processes = [
        await asyncio.create_subprocess_exec(
            PARLEY,
            "migrate",
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(3)
    ]
    results = [await p.communicate() for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0], [r[1].decode()[-500:] for r in results]
    assert await _tables(fresh_database) == TABLES
