"""Makes an agent key for a person and prints its secret (shown once): what the web UI's
Agent keys page does, for scripts. Signs in with dev sign-in (./dev.sh), as a program: the
sign-in's token is sent as a bearer credential, never a browser's cookie and Origin.

    .venv/bin/python examples/agent_key.py --user me --agent planner
"""

from __future__ import annotations

import argparse
import os
import sys

import httpx

from mcp_agent import DEFAULT_URL, run  # type: ignore[import-not-found]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--url",
        default=os.environ.get("PARLEY_URL", DEFAULT_URL),
        help="where Parley's API listens (default: %(default)s; or set PARLEY_URL)",
    )
    parser.add_argument("--user", required=True)
    parser.add_argument("--agent", required=True, help="the name its writes are signed with")
    args = parser.parse_args()
    try:
        async with httpx.AsyncClient(base_url=args.url, timeout=30) as client:
            signed = await client.post("/api/auth/dev-login", json={"user_id": args.user})
            if signed.status_code != 200:
                print(f"sign-in failed: {signed.text}", file=sys.stderr)
                return 1
            # The token, not the cookie also set: a cookie's writes are taken only from the
            # web UI's origin, which a program is not. The token is a fresh sign-in, which
            # making a key needs.
            client.cookies.clear()
            bearer = {"Authorization": f"Bearer {signed.json()['token']}"}
            key = await client.post(
                f"/api/{args.user}/agent-keys", json={"agent": args.agent}, headers=bearer
            )
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise ConnectionError(str(exc)) from exc  # said in one line by `run`
    if key.status_code != 201:
        print(f"no key: {key.text}", file=sys.stderr)
        return 1
    print(key.json()["secret"])
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
