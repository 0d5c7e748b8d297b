"""A real OpenID provider (npm `oidc-provider`, tests/fakes/oidc/server.mjs) for the OIDC tests."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "oidc"
CLIENT_ID, CLIENT_SECRET = "parley", "parley-test-secret"


@dataclass
class OidcProvider:
    issuer: str

    async def sign_in_as(self, **claims: object) -> None:
        """Who the provider's next sign-in is (it has no login page)."""
        async with httpx.AsyncClient() as client:
            r = await client.post(f"{self.issuer}/_identity", content=json.dumps(claims))
            assert r.status_code == 204


@asynccontextmanager
async def oidc_provider(redirect_uri: str) -> AsyncIterator[OidcProvider]:
    """The provider, with Parley's client registered for `redirect_uri`."""
    if not (FAKE / "node_modules").exists():
        pytest.fail("run scripts/setup.sh: the test OpenID provider is not installed")
    process = await asyncio.create_subprocess_exec(
        "node",
        str(FAKE / "server.mjs"),
        env={
            "PATH": os.environ.get("PATH", ""),
            "PORT": "0",
            "CLIENT_ID": CLIENT_ID,
            "CLIENT_SECRET": CLIENT_SECRET,
            "REDIRECT_URIS": redirect_uri,
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), timeout=30)
        yield OidcProvider(issuer=json.loads(line)["issuer"])
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
