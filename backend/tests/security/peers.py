"""Real peers for the address tests: an API listening on every address of this machine (one
dual-stack socket, as `::` gives Node and many proxies: an IPv4 client shows as
`::ffff:a.b.c.d`), clients that connect from this machine's own non-loopback addresses (so the
server's peer is not loopback, as for any browser on another machine), and the Argon2 counter
that tells how many guesses were really checked."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import uvicorn

from parley.accounts import hashing
from parley.api.app import create_app
from parley.serving import uvicorn_options
from tests.accounts.helpers import ORIGIN
from tests.conftest import Server, settings_for


def machine_addresses(family: int) -> list[str]:
    """This machine's global (not loopback, not link-local) addresses of `family` (4 or 6)."""
    out = subprocess.run(
        ["ip", "-j", f"-{family}", "addr", "show", "scope", "global"],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return []
    return [
        info["local"]
        for interface in json.loads(out.stdout or "[]")
        for info in interface.get("addr_info", [])
        if "local" in info
    ]


def outside_ipv4() -> str:
    """An address of this machine that is not loopback: connecting to it, the server's peer
    is that address, as a browser on another machine would be."""
    found = machine_addresses(4)
    if not found:
        pytest.skip("this machine has no non-loopback IPv4 address to connect from")
    return found[0]


def outside_ipv6() -> str | None:
    found = machine_addresses(6)
    return found[0] if found else None


def url_host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def every_address_socket() -> socket.socket:
    """Listening on `::` with IPv4 mapped in: one socket for 127.0.0.1, ::1 and this
    machine's other addresses, each peer reported as the socket spells it."""
    sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("::", 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


@asynccontextmanager
async def serve_everywhere(database_url: str, **overrides: Any) -> AsyncIterator[Server]:
    """The API on every address of this machine; `Server.base_url` is its loopback one,
    `port` (beside `Server.app`) reaches the others."""
    sock = every_address_socket()
    port = sock.getsockname()[1]
    settings = settings_for(**{"PARLEY_PUBLIC_URL": f"http://127.0.0.1:{port}", **overrides})
    app = create_app(settings, database_url=database_url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", **uvicorn_options(settings))
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            yield Server(base, client, settings, app)
    finally:
        server.should_exit = True
        await task
        sock.close()


def port_of(server: Server) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def client_at(address: str, port: int) -> httpx.AsyncClient:
    """A browser-like client (cookies, the web UI's Origin) reaching `address`:`port`."""
    return httpx.AsyncClient(
        base_url=f"http://{url_host(address)}:{port}", headers={"Origin": ORIGIN}, timeout=60
    )


class CountingHasher:
    """Argon2id as the product uses it, counting each password verification (a guess that
    was really checked). With `gate` unset, a verification waits for it: a test holds the
    checks in flight to send more attempts while they are."""

    def __init__(self) -> None:
        self.real = hashing._hasher
        self.verified = 0
        self.gate = threading.Event()
        self.gate.set()
        self._lock = threading.Lock()

    def verify(self, stored: str, password: str) -> bool:
        with self._lock:
            self.verified += 1
        self.gate.wait(timeout=120)
        return bool(self.real.verify(stored, password))

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)


def count_argon2(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    """Argon2 in this process (the servers the tests start in it) counts its checks."""
    counting = CountingHasher()
    hashing._dummy_hash()  # made before counting: it is no guess
    monkeypatch.setattr(hashing, "_hasher", counting)
    return counting
