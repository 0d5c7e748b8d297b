"""Makes an agent key for a person and prints its secret (shown once): what the web UI's
Agent keys page does, for scripts. Signs in with the person's password, or with dev sign-in
when no password is given (./dev.sh).

    .venv/bin/python examples/agent_key.py --user me --agent planner
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys

import httpx


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--user", required=True)
    parser.add_argument("--agent", required=True, help="the name its writes are signed with")
    parser.add_argument("--password", action="store_true", help="ask for the password")
    args = parser.parse_args()
    # The API takes a signed-in cookie only from the web UI's origin (it is a browser's).
    origin = os.environ.get("PARLEY_WEB_ORIGIN", "http://127.0.0.1:3000")
    async with httpx.AsyncClient(base_url=args.url, headers={"Origin": origin}) as client:
        if args.password:
            body = {"login": args.user, "password": getpass.getpass(f"{args.user}'s password: ")}
            signed = await client.post("/api/auth/login", json=body)
        else:
            signed = await client.post("/api/auth/dev-login", json={"user_id": args.user})
        if signed.status_code != 200:
            print(f"sign-in failed: {signed.text}", file=sys.stderr)
            return 1
        key = await client.post(f"/api/{args.user}/agent-keys", json={"agent": args.agent})
        if key.status_code != 201:
            print(f"no key: {key.text}", file=sys.stderr)
            return 1
        print(key.json()["secret"])
        await client.post("/api/auth/logout")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
