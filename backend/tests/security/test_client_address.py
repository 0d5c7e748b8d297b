"""Who is asking: the client's address decides dev sign-in ("this machine only") and whose
sign-in limits an attempt counts against. An attacker forges X-Forwarded-For (and its
cousins) to be 127.0.0.1, to be a new client at each guess, or to be their victim. These tests
attack the API directly from a real non-loopback peer (this machine's own outside address,
so the server's peer is not loopback) and through the real web UI (server.mjs, the built
Next.js app and its proxy), the way a browser on another machine reaches it."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from parley.config import Settings
from parley.db import Database
from tests.accounts.helpers import PASSWORD, browser, signup
from tests.conftest import eventually, free_port
from tests.security.peers import (
    client_at,
    outside_ipv4,
    outside_ipv6,
    port_of,
    serve_everywhere,
)

FRONTEND = Path(__file__).resolve().parents[3] / "frontend"
LONG_WAIT = {"PARLEY_LOGIN_DELAY": 120, "PARLEY_LOGIN_DELAY_MAX": 600}

# Every way a client might claim to be this machine.
FORGED_LOOPBACK: list[list[tuple[str, str]]] = [
    [("X-Forwarded-For", "127.0.0.1")],
    [("X-Forwarded-For", "::1")],
    [("X-Forwarded-For", "::ffff:127.0.0.1")],
    [("X-Forwarded-For", "[::1]:80")],
    [("X-Forwarded-For", "127.0.0.1, 127.0.0.1")],
    [("X-Forwarded-For", "localhost")],
    [("X-Forwarded-For", "127.0.0.1"), ("X-Forwarded-For", "127.0.0.1")],
    [("Forwarded", "for=127.0.0.1"), ("X-Real-IP", "127.0.0.1")],
]


async def _address_keys(db: Database) -> dict[str, int]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT key, failures FROM login_throttle WHERE key LIKE 'address:%'"
        )
    return {r["key"].removeprefix("address:"): r["failures"] for r in rows}


async def _fail(client: httpx.AsyncClient, login: str, headers: list[tuple[str, str]]) -> int:
    r = await client.post(
        "/api/auth/login", json={"login": login, "password": "not it at all"}, headers=headers
    )
    return r.status_code


async def _dev_login(
    client: httpx.AsyncClient, user: str, headers: list[tuple[str, str]] | None = None
) -> httpx.Response:
    return await client.post("/api/auth/dev-login", json={"user_id": user}, headers=headers)


async def _no_account(db: Database, user: str) -> bool:
    async with db.connection() as conn:
        return not await conn.fetchval("SELECT count(*) FROM accounts WHERE user_id = $1", user)


async def test_a_forged_forwarded_for_from_an_untrusted_peer_is_ignored(migrated, db):
    outside = outside_ipv4()
    async with serve_everywhere(migrated, PARLEY_ADDRESS_FREE_ATTEMPTS=3, **LONG_WAIT) as server:
        async with client_at(outside, port_of(server)) as remote:
            for headers in FORGED_LOOPBACK:
                r = await _dev_login(remote, "mallory", headers)
                assert r.status_code == 404, (headers, r.text)
                assert "parley_session" not in remote.cookies
            assert await _no_account(db, "mallory")
            # a new "client" at each guess, then the victim's address: all one client
            statuses = [
                await _fail(remote, f"guess{i}", [("X-Forwarded-For", forged)])
                for i, forged in enumerate(["203.0.113.1", "203.0.113.2", "127.0.0.1", "::1"])
            ]
            assert statuses == [401, 401, 401, 429]
            assert await _address_keys(db) == {outside: 3}
        # the victim on this machine was never counted
        async with browser(server.base_url) as local:
            assert (await _dev_login(local, "victim")).status_code == 200


async def test_a_loopback_peer_in_any_spelling_gets_dev_sign_in(migrated, db):
    """On a dual-stack socket a local IPv4 browser's peer is ::ffff:127.0.0.1, which Python
    3.11 does not call loopback: it is read as 127.0.0.1. An outside IPv6 peer is refused."""
    async with serve_everywhere(migrated) as server:
        for host in ("127.0.0.1", "::1"):
            async with client_at(host, port_of(server)) as local:
                r = await _dev_login(local, "dana")
                assert r.status_code == 200, (host, r.text)
                assert (await local.get("/api/auth/me")).json()["user_id"] == "dana"
        outside6 = outside_ipv6()
        if outside6:
            async with client_at(outside6, port_of(server)) as remote:
                r = await _dev_login(remote, "eve", [("X-Forwarded-For", "::1")])
                assert r.status_code == 404
            assert await _no_account(db, "eve")


# (X-Forwarded-For as the trusted proxy sends it, the client the API must see)
CHAINS = [
    ("203.0.113.9", "203.0.113.9"),
    ("198.51.100.1, 203.0.113.9", "203.0.113.9"),  # the left entry is the client's own claim
    ("127.0.0.1, 203.0.113.9", "203.0.113.9"),
    ("203.0.113.9, 10.1.2.3", "203.0.113.9"),  # 10.1.2.3 is a proxy we trust: skipped
    ("198.51.100.1 ,203.0.113.9  ,\t10.1.2.3", "203.0.113.9"),
    ("198.51.100.1,203.0.113.9,10.1.2.3,10.9.9.9", "203.0.113.9"),
    ("203.0.113.9:4711", "203.0.113.9"),
    ("::ffff:203.0.113.9", "203.0.113.9"),
    ("203.0.113.9, ::ffff:10.1.2.3", "203.0.113.9"),
    ("2001:db8:1:2::5", "2001:db8:1:2::/64"),
    ("[2001:db8:1:2::5]:443", "2001:db8:1:2::/64"),
    ("[2001:db8:1:2::5]", "2001:db8:1:2::/64"),
    ("garbage, 203.0.113.9", "203.0.113.9"),  # never reached
    ("203.0.113.9, garbage", "unknown"),  # a trusted hop that does not know: unknown
    ("unknown", "unknown"),
    ("203.0.113.9, , 10.1.2.3", "203.0.113.9"),
    ("10.4.4.4", "10.4.4.4"),  # only trusted hops: the first of them
    ("2001:db8:ffff::7, 10.4.4.4", "2001:db8:ffff::/64"),
    ("", "127.0.0.1"),  # no header: the peer
]


async def test_from_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client(make_server, db):
    trusted = "127.0.0.1/8,::1,10.0.0.0/8,2001:db8:ffff::/48"
    async with (
        make_server(PARLEY_TRUSTED_PROXIES=trusted) as server,
        browser(server.base_url) as proxy,  # a loopback peer: trusted
    ):
        for i, (forwarded, client) in enumerate(CHAINS):
            async with db.connection() as conn:
                await conn.execute("DELETE FROM login_throttle")
            headers = [("X-Forwarded-For", forwarded)] if forwarded else []
            assert await _fail(proxy, f"chain{i}", headers) == 401
            assert await _address_keys(db) == {client: 1}, forwarded
        # two header lines are one list, read from the right
        async with db.connection() as conn:
            await conn.execute("DELETE FROM login_throttle")
        two = [("X-Forwarded-For", "127.0.0.1"), ("X-Forwarded-For", "203.0.113.9")]
        assert await _fail(proxy, "two-lines", two) == 401
        assert await _address_keys(db) == {"203.0.113.9": 1}
        # dev sign-in believes the proxy only about its own machine
        assert (await _dev_login(proxy, "viaproxy", [("X-Forwarded-For", "127.0.0.1")])).is_success
        for forwarded in ("127.0.0.1, 203.0.113.9", "203.0.113.9, garbage", "10.4.4.4"):
            r = await _dev_login(proxy, "forged", [("X-Forwarded-For", forwarded)])
            assert r.status_code == 404, forwarded
        assert await _no_account(db, "forged")


def test_a_mistyped_trusted_proxy_stops_the_server_from_starting():
    for bad in ("10.0.0.0/33", "10.0.0.300", "proxy.internal", "10.0.0.1, ::1/129"):
        with pytest.raises(ValidationError, match="PARLEY_TRUSTED_PROXIES"):
            Settings(PARLEY_TRUSTED_PROXIES=bad)


# --- through the real web UI ---------------------------------------------------------------


def _built_web_ui() -> None:
    """The production build the web UI serves (`npm run build`, made here when missing; one
    process at a time)."""
    if not (FRONTEND / "node_modules" / ".bin" / "next").exists():
        pytest.fail("run scripts/setup.sh: the web UI's packages are not installed")
    lock_path = Path(tempfile.gettempdir()) / "parley-web-build.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (FRONTEND / ".next" / "BUILD_ID").exists():
            subprocess.run(
                ["npm", "run", "build"],
                cwd=FRONTEND,
                check=True,
                env={**os.environ, "NEXT_TELEMETRY_DISABLED": "1"},
                stdout=subprocess.DEVNULL,
            )


@asynccontextmanager
async def web_ui(api_url: str, **env: str) -> AsyncIterator[int]:
    """`node server.mjs` (what `npm start` runs) on every address of this machine, in front
    of the API at `api_url`; yields its port."""
    await asyncio.to_thread(_built_web_ui)
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = await asyncio.create_subprocess_exec(
            "node",
            "server.mjs",
            "-H",
            "::",
            "-p",
            str(port),
            cwd=FRONTEND,
            env={**os.environ, "PARLEY_API_URL": api_url, "NEXT_TELEMETRY_DISABLED": "1", **env},
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        try:

            async def up() -> bool:
                if process.returncode is not None:
                    log.seek(0)
                    raise AssertionError(f"the web UI exited: {log.read().decode()[-2000:]}")
                try:
                    async with httpx.AsyncClient() as client:
                        r = await client.get(f"http://127.0.0.1:{port}/api/health")
                        return r.status_code == 200
                except httpx.HTTPError:
                    return False

            await eventually(up, within=120)
            yield port
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


async def test_through_the_web_ui_a_browser_elsewhere_cannot_claim_another_address(make_server, db):
    """The web UI's proxy is a trusted proxy of the API, so what it forwards is believed: it
    must forward the browser's socket address, never the browser's own X-Forwarded-For."""
    outside = outside_ipv4()
    async with (
        make_server(PARLEY_SIGNUP="open", PARLEY_ADDRESS_FREE_ATTEMPTS=3, **LONG_WAIT) as api,
        web_ui(api.base_url) as port,
    ):
        async with client_at(outside, port) as remote:
            for headers in FORGED_LOOPBACK:
                r = await _dev_login(remote, "mallory", headers)
                assert r.status_code == 404, (headers, r.text)
                assert "parley_session" not in remote.cookies
            assert await _no_account(db, "mallory")
            async with client_at("127.0.0.1", port) as local:
                await signup(local, "victim")
            # each guess "from a new client", then as the victim on this machine
            forged = ["203.0.113.1", "203.0.113.2", "127.0.0.1", "::ffff:127.0.0.1", "::1"]
            statuses = [
                await _fail(remote, f"guess{i}", [("X-Forwarded-For", address)])
                for i, address in enumerate(forged)
            ]
            assert statuses == [401, 401, 401, 429, 429]
            assert await _address_keys(db) == {outside: 3}
        # the victim, a browser on this machine (its peer ::ffff:127.0.0.1 on the UI's
        # dual-stack socket, or ::1), signs in and still gets dev sign-in
        for host in ("127.0.0.1", "::1"):
            async with client_at(host, port) as local:
                r = await local.post(
                    "/api/auth/login", json={"login": "victim", "password": PASSWORD}
                )
                assert r.status_code == 200, r.text
                r = await _dev_login(local, "dana", [("X-Forwarded-For", "203.0.113.1")])
                assert r.status_code == 200, (host, r.text)


async def test_through_the_web_ui_a_trusted_reverse_proxy_in_front_names_the_client(
    make_server, db
):
    """With PARLEY_WEB_TRUSTED_PROXIES naming a reverse proxy in front of the web UI (here:
    this machine's outside IPv6 address), that proxy's X-Forwarded-For is read right to left;
    every other peer's is still replaced by its socket address."""
    proxy6 = outside_ipv6()
    if proxy6 is None:
        pytest.skip("this machine has no non-loopback IPv6 address to act as the proxy")
    outside = outside_ipv4()
    async with (
        make_server(PARLEY_ADDRESS_FREE_ATTEMPTS=30, **LONG_WAIT) as api,
        web_ui(api.base_url, PARLEY_WEB_TRUSTED_PROXIES=proxy6) as port,
    ):
        cases = [
            (proxy6, "127.0.0.1, 203.0.113.7", "203.0.113.7"),
            (proxy6, "203.0.113.7, " + proxy6, "203.0.113.7"),
            (proxy6, "203.0.113.7, garbage", "unknown"),
            (outside, "203.0.113.7", outside),  # not the trusted proxy: its socket
        ]
        for i, (peer, forwarded, client) in enumerate(cases):
            async with db.connection() as conn:
                await conn.execute("DELETE FROM login_throttle")
            async with client_at(peer, port) as through:
                assert await _fail(through, f"rp{i}", [("X-Forwarded-For", forwarded)]) == 401
            assert await _address_keys(db) == {client: 1}, (peer, forwarded)
            async with client_at(peer, port) as through:
                r = await _dev_login(through, f"rp{i}", [("X-Forwarded-For", forwarded)])
                assert r.status_code == 404
