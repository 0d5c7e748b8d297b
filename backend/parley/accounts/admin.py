"""`parley user …`: what the operator does before (or besides) any admin in the web UI."""

from __future__ import annotations

import argparse
from datetime import timedelta

from parley.accounts import invites, sessions, store
from parley.config import Settings
from parley.db import Database


async def run_user_command(url: str, settings: Settings, args: argparse.Namespace) -> str:
    """What to print for `parley user <action> NAME`."""
    db = await Database.connect(url, max_connections=1)
    try:
        if args.action == "create":
            _, token = await invites.create(
                db,
                created_by=None,
                lifetime=timedelta(days=settings.invite_days),
                email=args.email,
                user_id=args.name,
                is_admin=args.admin,
            )
            link = invites.link(settings.web_origin, token)
            role = "admin " if args.admin else ""
            return f"Sign-up link for the {role}account {args.name!r} (works once): {link}"
        if args.action == "sign-out":
            if args.everyone:
                ended = await sessions.end_everyone(db, keep=None)
                return f"every web session ended ({ended})"
            ended = await sessions.end_others(db, user_id=args.name, keep=None)
            return f"{args.name}: every web session ended ({ended})"
        if args.action in ("disable", "enable"):
            await store.set_disabled(db, user_id=args.name, disabled=args.action == "disable")
            return f"{args.name}: {args.action}d"
        await store.revoke_tokens(db, user_id=args.name)
        return f"{args.name}: every token issued so far is refused"
    finally:
        await db.close()


async def first_admin_hint(db: Database, settings: Settings) -> str | None:
    """What a fresh deployment's log says until it has an admin (with sign-up not open,
    nobody could otherwise get in)."""
    if settings.signup == "open":
        return None
    async with db.connection() as conn:
        if await store.any_admin(conn):
            return None
    return (
        "No admin account yet: `parley user create NAME --admin` prints a one-time sign-up"
        " link (with docker compose: `docker compose exec api parley user create admin --admin`)"
    )
