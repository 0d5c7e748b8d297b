"""Shared pieces of the benchmark: statistics, the database, the server subprocess, CPU
accounting and machine facts. Nothing here is imported by the product or its tests."""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
SECRET = "bench-secret-" + "b" * 40
HOST = "127.0.0.1"

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


# ---------------------------------------------------------------------------- statistics


def pct(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), nearest-rank on the sorted values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


# ---------------------------------------------------------------------------- CPU accounting


def _thread_schedstat(pid: int) -> tuple[int, int]:
    """(ns on CPU, ns runnable but waiting for a CPU) summed over a process's live threads."""
    run = wait = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    parts = f.read().split()
                run += int(parts[0])
                wait += int(parts[1])
            except (OSError, IndexError, ValueError):
                continue
    except OSError:
        pass
    return run, wait


@dataclass
class CpuSnapshot:
    cpu: float  # seconds on CPU (user + system)
    runqueue_wait: float  # seconds runnable but not running: the machine was busy elsewhere


def _per_pid(pids: list[int]) -> dict[int, tuple[float, float]]:
    out: dict[int, tuple[float, float]] = {}
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        out[pid] = (times.user + times.system, _thread_schedstat(pid)[1] / 1e9)
    return out


def _delta(
    start: dict[int, tuple[float, float]], end: dict[int, tuple[float, float]]
) -> CpuSnapshot:
    """Processes alive at the end: their CPU since the start (all of it if they started
    later). A process that exited in between takes its CPU with it: a small undercount."""
    cpu = wait = 0.0
    for pid, (c, w) in end.items():
        c0, w0 = start.get(pid, (0.0, 0.0))
        cpu += max(0.0, c - c0)
        wait += max(0.0, w - w0)
    return CpuSnapshot(cpu, wait)


def process_tree(pid: int) -> list[int]:
    """A process and its descendants (`parley serve --workers N` forks worker processes)."""
    try:
        return [pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))]
    except psutil.Error:
        return [pid]


@dataclass
class CpuMeter:
    """CPU used by the server (with any worker processes), by PostgreSQL (embedded only)
    and by this (client) process over a window."""

    server_pid: int
    pgdata: Path | list[Path] | None
    start: dict[str, dict[int, tuple[float, float]]] = field(default_factory=dict)
    wall0: float = 0.0

    def _snap(self) -> dict[str, dict[int, tuple[float, float]]]:
        own = os.getpid()
        return {
            "server": _per_pid(process_tree(self.server_pid)),
            "postgres": _per_pid(postgres_pids(self.pgdata)),
            "client": {own: (time.process_time(), _thread_schedstat(own)[1] / 1e9)},
        }

    def __enter__(self) -> CpuMeter:
        self.start = self._snap()
        self.wall0 = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        end = self._snap()
        self.wall = time.perf_counter() - self.wall0
        self.used = {k: _delta(self.start[k], end[k]) for k in end}


def postgres_pids(pgdata: Path | list[Path] | None) -> list[int]:
    """The postmaster of our embedded PostgreSQL (or of each node of a local Citus cluster)
    and its backends (empty for an external DB)."""
    if pgdata is None:
        return []
    dirs = {str(p) for p in (pgdata if isinstance(pgdata, list) else [pgdata])}
    pids: list[int] = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            cmd = proc.info["cmdline"] or []
            if cmd and cmd[0].endswith("/postgres") and dirs & set(cmd):
                pids.append(proc.pid)
                pids.extend(child.pid for child in proc.children(recursive=True))
        except psutil.Error:
            continue
    return pids


# ---------------------------------------------------------------------------- machine


def machine() -> dict[str, str]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "backend",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if dirty:
            commit += " (+ uncommitted backend changes in the working tree)"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "cpu": f"{model or platform.processor()} — {psutil.cpu_count()} logical cores",
        "memory": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "commit": commit,
    }


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


# ---------------------------------------------------------------------------- database


class BenchDatabase:
    """`DATABASE_URL` when set (bench rows are deleted afterwards), else a throwaway embedded
    PostgreSQL in a temporary directory. Migrated to head either way."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="parley-bench-"))
        self.external = bool(os.environ.get("DATABASE_URL"))
        self.embedded: Any = None
        self.pgdata: Path | list[Path] | None = None
        self.url = ""

    def start(self) -> str:
        from parley.config import Settings
        from parley.db import EmbeddedPostgres
        from parley.migrate import upgrade

        if self.external:
            url = Settings(DATABASE_URL=os.environ["DATABASE_URL"]).database_url
            assert url
            self.url = url
        else:
            self.embedded = EmbeddedPostgres(self.tmp / "db")
            self.url = self.embedded.start()
            self.pgdata = self.embedded.pgdata
        upgrade(self.url)
        return self.url

    def stop(self) -> None:
        if self.embedded is not None:
            self.embedded.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


@asynccontextmanager
async def pg_connection(url: str) -> AsyncIterator[Any]:
    """One plain asyncpg connection (autocommit, no JSON codecs) to the app's database URL."""
    import asyncpg
    from parley.db import asyncpg_dsn

    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        yield conn
    finally:
        await conn.close()


# ---------------------------------------------------------------------------- server


def server_args() -> argparse.Namespace:
    """The options `ServerProcess` passes to a bench server script (`_instrumented_server.py`,
    `_sse_server.py`), as to `parley serve`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default=HOST)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    return parser.parse_args()


class ServerProcess:
    """`parley serve` as a subprocess on a loopback port, on the bench database."""

    def __init__(
        self,
        db: BenchDatabase,
        *,
        name: str,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.db = db
        self.name = name
        self.port = free_port()
        self.base_url = f"http://{HOST}:{self.port}"
        self.extra_env = env or {}
        self.command = command
        self.args = args or []
        self.log_path = db.tmp / f"server-{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        env = {
            k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")
        }
        env.update(
            DATABASE_URL=self.db.url,
            PARLEY_DATA_DIR=str(self.db.tmp / f"data-{self.name}"),
            PARLEY_AUTH_SECRET=SECRET,
            PARLEY_DEV_LOGIN="1",
            PARLEY_MODEL="offline",
            PARLEY_RATE_LIMIT_PER_MINUTE="0",
            # Every bench client shares one address: the per-client caps would measure them.
            PARLEY_MAX_CONNECTIONS_PER_CLIENT="0",
        )
        env.update(self.extra_env)
        return env

    def start(self) -> ServerProcess:
        command = self.command or [str(VENV_BIN / "parley"), "serve"]
        log = open(self.log_path, "wb")  # noqa: SIM115 (the server process keeps it)
        self.proc = subprocess.Popen(
            [
                *command,
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                *self.args,
            ],
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=str(self.db.tmp),
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server {self.name} exited:\n{self.log_path.read_text()[-3000:]}"
                )
            try:
                if httpx.get(self.base_url + "/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(
            f"server {self.name} did not start:\n{self.log_path.read_text()[-3000:]}"
        )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss(self) -> int:
        total = 0
        for pid in process_tree(self.pid):
            try:
                total += psutil.Process(pid).memory_info().rss
            except psutil.Error:
                continue
        return total

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        t0 = time.perf_counter()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=20)
            if os.environ.get("BENCH_DEBUG"):
                print(
                    f"   (server {self.name} stopped in {time.perf_counter() - t0:.1f} s)",
                    flush=True,
                )
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def token(user: str, agent: str | None = None) -> str:
    """The person's token, or with `agent` that agent's token for the person."""
    from parley.auth import mint_token

    return mint_token(secret=SECRET, user_id=user, ttl_seconds=3600, agent=agent)


def auth(user: str, agent: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(user, agent)}"}


def client(base_url: str, *, timeout: float = 120) -> httpx.AsyncClient:
    """One client (one keep-alive connection) per simulated user. A single client shared by
    64+ concurrent requests spends most of its CPU in httpcore's pool bookkeeping, which
    made the client the bottleneck; one each keeps the client side cheap (it is measured)."""
    return httpx.AsyncClient(
        base_url=base_url,
        timeout=timeout,
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
    )


async def create_conversation(cl: httpx.AsyncClient, user: str) -> int:
    r = await cl.post(f"/api/{user}/conversations", json={}, headers=auth(user))
    r.raise_for_status()
    cid: int = r.json()["id"]
    return cid


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class LeanClient:
    """A minimal HTTP/1.1 keep-alive client for POSTing JSON (and plain GETs): request bytes written, status
    line, headers and a Content-Length body read back, nothing else. httpx spends ~1.3 ms
    of CPU per request, which a one-at-a-time latency figure would charge to the server;
    this spends ~0.2 ms, so latency at concurrency 1 is the server's cost of a turn."""

    def __init__(self, base_url: str) -> None:
        self.host, _, port = base_url.removeprefix("http://").partition(":")
        self.port = int(port)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> LeanClient:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._writer is not None:
            self._writer.close()

    async def post_json(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        assert self._writer is not None
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{head}"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        return await self._response()

    async def get(self, path: str, headers: dict[str, str]) -> tuple[int, bytes]:
        assert self._writer is not None
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n{head}\r\n".encode()
        )
        return await self._response()

    async def _response(self) -> tuple[int, bytes]:
        """Status and a Content-Length body (no chunked or streamed responses)."""
        assert self._reader is not None
        status = int((await self._reader.readline()).split(b" ", 2)[1])
        length = 0
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self._reader.readexactly(length)


def run_alone(
    doc: str | None,
    measure: Callable[[BenchDatabase, bool], dict[str, Any]],
    show: Callable[[dict[str, Any]], None],
) -> int:
    """A section as its own command (`python bench/<section>.py [--quick]`): a throwaway
    database (or DATABASE_URL), the section measured, its figures printed."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    db = BenchDatabase()
    db.start()
    try:
        found = measure(db, args.quick)
    finally:
        db.stop()
    show(found)
    return 0


Pair = tuple["ServerProcess", "ServerProcess"]


@contextmanager
def server_pair(db: BenchDatabase, name: str, *, reuse: Pair | None = None) -> Iterator[Pair]:
    """Two `parley serve` instances on one database (A and B), stopped afterwards; or
    `reuse`, a pair someone else started and will stop."""
    if reuse is not None:
        yield reuse
        return
    a = ServerProcess(db, name=f"{name}-a").start()
    try:
        b = ServerProcess(db, name=f"{name}-b").start()
        try:
            yield a, b
        finally:
            b.stop()
    finally:
        a.stop()
