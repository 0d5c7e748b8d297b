"""Shared fixtures: one real PostgreSQL per test session, a clean schema per test, and the
app served over real HTTP by uvicorn on a loopback port.

The database is `PARLEY_TEST_DATABASE_URL` when set (it is wiped: point it at a throwaway
database; under pytest-xdist each worker makes its own beside it), else an embedded PostgreSQL
in a temporary directory (one per worker).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
import tempfile
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest
import uvicorn
from agents.models.interface import Model

from parley.api.app import create_app
from parley.auth import mint_token
from parley.cluster.build import ensure_built
from parley.cluster.local import LocalCluster
from parley.config import Settings
from parley.db import Database, EmbeddedPostgres, retry_on_reconnect
from parley.migrate import upgrade
from parley.serving import uvicorn_options

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

SECRET = "test-secret-" + "x" * 32
TABLES = (
    "oauth_tokens, oauth_grants, oauth_clients, login_throttle, auth_challenges, passkeys,"
    " invites, agent_keys, web_sessions, accounts, user_events, questions, delegations,"
    " turn_tool_calls, work_sessions, messages, agent_runs, conversations, tasks, task_counters,"
    " push_outbox, push_subscriptions, notification_prefs, conversation_mutes,"
    " question_escalations, push_vapid, mcp_calls, work_uids, work_usage,"
    " approval_rules, permission_requests, device_codes, audit_events, attachments"
)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    url = os.environ.get("PARLEY_TEST_DATABASE_URL")
    if url:
        url = Settings(DATABASE_URL=url).database_url
        assert url
        yield asyncio.run(_worker_database(url))
        return
    # Not pytest's tmp_path: pytest prunes old base temp dirs, and a concurrent session
    # would delete the data dir under this running server.
    data_dir = Path(tempfile.mkdtemp(prefix="parley-test-pg-"))
    embedded = EmbeddedPostgres(data_dir)
    url = embedded.start()
    try:
        yield url
    finally:
        embedded.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


async def _worker_database(url: str) -> str:
    """Under pytest-xdist each worker wipes tables per test: on a shared server, give each
    worker its own database next to the one named (recreated empty)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'postgres'}_{worker}"
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def migrated(database_url: str) -> str:
    upgrade(database_url)
    return database_url


@pytest.fixture(scope="session")
def cluster() -> Iterator[LocalCluster]:
    """A Citus cluster on loopback, a coordinator and two workers, for the tests marked
    `cluster`: Citus is built once per machine (cached outside the clone), the cluster made
    for the session in a temporary directory (or `PARLEY_TEST_CLUSTER_DIR`'s, kept)."""
    settings = Settings()
    build = ensure_built(settings.citus_source, settings.citus_cache)
    kept = os.environ.get("PARLEY_TEST_CLUSTER_DIR")  # a developer's cluster, left running
    directory = Path(kept) if kept else Path(tempfile.mkdtemp(prefix="parley-test-cluster-"))
    local = LocalCluster(directory, build)
    try:
        local.start(workers=2)
        yield local
    finally:
        if not kept:
            local.stop()
            shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def cluster_url(cluster: LocalCluster) -> str:
    """Parley's database on the cluster, migrated (its tables placed on the nodes). Tests
    on it do not wipe it: each works with people of its own (`tests.cluster.helpers`)."""
    url = Settings(DATABASE_URL=cluster.create_database("parley_test")).database_url
    assert url
    upgrade(url)
    return url


@pytest.fixture(scope="session")
async def cluster_db(cluster_url: str) -> AsyncIterator[Database]:
    database = await Database.connect(cluster_url, max_connections=5)
    yield database
    await database.close()


@pytest.fixture(scope="session")
async def placement(cluster: LocalCluster, cluster_db: Database) -> Any:
    """Which worker holds whose rows (`tests.cluster.helpers.Placement`)."""
    from tests.cluster.helpers import Placement

    return Placement(cluster, cluster_db)


@pytest.fixture(scope="session")
async def db(migrated: str) -> AsyncIterator[Database]:
    database = await Database.connect(migrated, max_connections=5)
    yield database
    await database.close()


@pytest.fixture(autouse=True)
async def clean(request: pytest.FixtureRequest) -> None:
    """Every test that touches the database starts from empty tables."""
    if "db" not in request.fixturenames and "server" not in request.fixturenames:
        return
    database: Database = request.getfixturevalue("db")

    @retry_on_reconnect  # an earlier test may have killed the pool's connections (a "restart")
    async def truncate() -> None:
        async with database.connection() as conn:
            await conn.execute(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")

    await truncate()


async def snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that matters, all users: a refused request must leave it exactly so."""
    queries = {
        "tasks": "SELECT id, user_id, title, description, completed, updated_at FROM tasks",
        "conversations": (
            "SELECT id, user_id, title, version, turn_id, updated_at FROM conversations"
        ),
        "messages": "SELECT id, conversation_id, user_id, content, tool_calls::text FROM messages",
        "agent_runs": "SELECT id, status, progress, latest_status, last_activity_at"
        " FROM agent_runs",
        "questions": "SELECT message_id AS id, status, answer_id FROM questions",
        "user_events": "SELECT id, user_id, kind, action, ref FROM user_events",
        "accounts": "SELECT user_id AS id, email, password_hash, is_admin, disabled_at,"
        " tokens_revoked_at FROM accounts",
        "web_sessions": "SELECT id, user_id FROM web_sessions",
        "agent_keys": "SELECT id, user_id, agent FROM agent_keys",
        "passkeys": "SELECT id, user_id FROM passkeys",
        "invites": "SELECT id, used_at FROM invites",
        "push_subscriptions": "SELECT id, user_id, endpoint, p256dh, label FROM push_subscriptions",
        "notification_prefs": "SELECT user_id AS id, question, run_failed, message"
        " FROM notification_prefs",
        "conversation_mutes": "SELECT conversation_id AS id, user_id FROM conversation_mutes",
        "approval_rules": "SELECT id, user_id, decision, pattern, scope, scope_value, on_timeout,"
        " updated_at FROM approval_rules",
        "permission_requests": "SELECT question_id AS id, user_id, agent, tool_use_id"
        " FROM permission_requests",
        "audit_events": "SELECT id, user_id, question_id, decision, via FROM audit_events",
        "attachments": "SELECT id, user_id, name, conversation_id, message_id FROM attachments",
    }
    async with db.connection() as conn:
        return {
            name: [tuple(r) for r in await conn.fetch(q + " ORDER BY id")]
            for name, q in queries.items()
        }


def settings_for(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "PARLEY_AUTH_SECRET": SECRET,
        "PARLEY_DEV_LOGIN": True,
        "PARLEY_MODEL": "offline",
        "PARLEY_RATE_LIMIT_PER_MINUTE": 0,
        "OPENAI_API_KEY": None,
    }
    values.update(overrides)
    return Settings(**values)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A running app: its base URL, an HTTP client, and helpers to act as a user."""

    def __init__(
        self, base_url: str, client: httpx.AsyncClient, settings: Settings, app: Any = None
    ) -> None:
        self.base_url = base_url
        self.client = client
        self.settings = settings
        self.app = app

    async def following(self, conversation_id: int) -> None:
        """Until someone in this server (a long poll, a wait for a child) follows the
        conversation's messages: the signal to write what it must see arrive."""

        async def subscribed() -> bool:
            return bool(self.app.services.hub.watchers(conversation_id))

        await eventually(subscribed)

    async def waiting_for(self, question_id: int) -> None:
        """Until someone in this server waits for the question's answer."""

        async def waiting() -> bool:
            return bool(self.app.services.waits.watchers(("question", question_id)))

        await eventually(waiting)

    def headers(self, user: str, agent: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token_for(user, agent=agent)}"}

    async def chat(
        self, user: str, message: str, conversation_id: int | None = None
    ) -> httpx.Response:
        return await self.client.post(
            f"/api/{user}/chat",
            json={"conversation_id": conversation_id, "message": message},
            headers=self.headers(user),
        )


def token_for(user: str, ttl: int = 3600, agent: str | None = None) -> str:
    return mint_token(secret=SECRET, user_id=user, ttl_seconds=ttl, agent=agent)


@asynccontextmanager
async def on_loopback(
    app: Any, port: int, *, force_exit: bool = False, **options: Any
) -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn on 127.0.0.1:`port` for the block; yields its base URL.
    `force_exit` ends open responses at once on the way out (a hanging stream, say); `options`
    go to uvicorn."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", **options
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = force_exit
        await task


# A kept-alive connection is reused only well inside the server's keep-alive timeout
# (PARLEY_KEEPALIVE_TIMEOUT, 5 s): httpx's own expiry is also 5 s, so a request could go out on
# a connection the server was closing that instant, and fail with a ReadError under load.
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=1.0)


@asynccontextmanager
async def serve(
    database_url: str, *, model: Model | None = None, **overrides: Any
) -> AsyncIterator[Server]:
    port = free_port()
    settings = settings_for(**{"PARLEY_PUBLIC_URL": f"http://127.0.0.1:{port}", **overrides})
    app = create_app(settings, database_url=database_url, model=model)
    async with (
        on_loopback(app, port, **uvicorn_options(settings)) as base,
        httpx.AsyncClient(base_url=base, timeout=60, limits=CLIENT_LIMITS) as client,
    ):
        yield Server(base, client, settings, app)


@pytest.fixture
async def server(migrated: str, db: Database) -> AsyncIterator[Server]:
    async with serve(migrated) as running:
        yield running


@pytest.fixture
def make_server(migrated: str, db: Database) -> Callable[..., Any]:
    """`async with make_server(model=..., PARLEY_HISTORY_LIMIT=3) as s:` for a custom app."""

    def factory(**kwargs: Any) -> Any:
        return serve(migrated, **kwargs)

    return factory


@pytest.fixture
def backend_dir() -> Path:
    return Path(__file__).resolve().parents[1]


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> None:
    """Poll until `check` is true; for effects another process produces."""
    deadline = asyncio.get_running_loop().time() + within
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


PARLEY = str(Path(sys.executable).with_name("parley"))
_SPAWNED: list[asyncio.subprocess.Process] = []


@pytest.fixture(autouse=True)
async def _reap_spawned() -> AsyncIterator[None]:
    """A failing test must not leave a server process behind."""
    yield
    while _SPAWNED:
        process = _SPAWNED.pop()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


async def spawn_server(
    database_url: str,
    port: int | None = None,
    *,
    log_level: str = "warning",
    output: IO[bytes] | None = None,
    **env: str,
) -> tuple[asyncio.subprocess.Process, str]:
    """`parley serve` in its own process (and session, so a test can kill its group);
    `port` to restart one where its clients expect it; `output` to keep what it logs."""
    port = port or free_port()
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "serve",
        "--port",
        str(port),
        "--log-level",
        log_level,
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "PARLEY_AUTH_SECRET": SECRET,
            "PARLEY_MODEL": "offline",
            "PARLEY_RATE_LIMIT_PER_MINUTE": "0",
            **env,
        },
        stdout=output,
        stderr=output,
        start_new_session=True,
    )
    _SPAWNED.append(process)
    base = f"http://127.0.0.1:{port}"

    async def up() -> bool:
        try:
            async with httpx.AsyncClient() as client:
                return (await client.get(f"{base}/api/health")).status_code == 200
        except httpx.HTTPError:
            return False

    await eventually(up, within=30)
    return process, base
