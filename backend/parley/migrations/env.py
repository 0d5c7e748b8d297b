"""Alembic environment: async engine, and an advisory lock so concurrent starts migrate once.
On a Citus coordinator the tables are then placed on the cluster (parley.cluster.layout)."""

from __future__ import annotations

import asyncio
import logging

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import SQLModel

import parley.models  # noqa: F401  (registers the tables on the metadata)
from parley.cluster import layout
from parley.config import get_settings
from parley.db import SERVER_SETTINGS, resolve_database_url

config = context.config
log = logging.getLogger("parley.migrate")
target_metadata = SQLModel.metadata

# Any constant works; it only has to be the same for every Parley instance.
MIGRATION_LOCK_KEY = 0x7061726C6579


def _run(connection: Connection) -> None:
    connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
    try:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        # The lock is session-level; commit the migration before releasing it.
        connection.commit()
        if config.attributes.get("layout", True) and layout.is_citus(connection):
            for step in layout.apply(connection):
                log.info("citus: %s", step)
            connection.commit()
    except BaseException:
        connection.rollback()  # so the unlock runs, and the error is the one reported
        raise
    finally:
        connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK_KEY})
        connection.commit()


async def _run_async(url: str) -> None:
    engine = create_async_engine(url, connect_args={"server_settings": SERVER_SETTINGS})
    try:
        async with engine.connect() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


def main() -> None:
    url = config.attributes.get("database_url")
    embedded = None
    if url is None:
        url, embedded = asyncio.run(resolve_database_url(get_settings()))
    try:
        if context.is_offline_mode():
            context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
            with context.begin_transaction():
                context.run_migrations()
        else:
            asyncio.run(_run_async(url))
    finally:
        if embedded is not None:
            embedded.stop()


main()
