"""The embedded PostgreSQL after a crash: `parley serve` killed with -9 leaves its server
running; the next start takes it over, and a clean exit stops it. Never two, never none
left behind."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
from pathlib import Path

import psutil

from tests.conftest import eventually, spawn_server


def _postmasters(pgdata: Path) -> list[psutil.Process]:
    """Running PostgreSQL servers (not their backends) on this data dir."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline", "ppid"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and "-D" in cmdline and str(pgdata) in cmdline:
            found.append(proc)
    return found


async def test_a_killed_servers_postgres_is_adopted_and_stopped_on_clean_exit():
    data_dir = Path(tempfile.mkdtemp(prefix="parley-leak-"))
    pgdata = (data_dir / "pgdata").resolve()
    env = {"DATABASE_URL": "", "PARLEY_DATA_DIR": str(data_dir)}
    try:
        first, _ = await spawn_server("", **env)
        [orphan] = _postmasters(pgdata)
        os.kill(first.pid, signal.SIGKILL)  # the server only, as a crash would
        await first.wait()
        assert orphan.is_running()  # left behind: nobody will stop it...

        second, _ = await spawn_server("", **env)
        assert [p.pid for p in _postmasters(pgdata)] == [orphan.pid]  # ...until it is adopted

        second.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(second.wait(), timeout=60) == 0

        async def stopped() -> bool:
            return not _postmasters(pgdata)

        await eventually(stopped, within=15)
    finally:
        for proc in _postmasters(pgdata):
            proc.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
