"""`parley cluster start|stop`: one command gives a working cluster and its DATABASE_URL; the
same directory started with more workers adds them; stop stops every node."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

import asyncpg
import pytest

pytestmark = pytest.mark.cluster

PARLEY = str(Path(sys.executable).with_name("parley"))


async def _parley(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "cluster",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=os.environ.copy(),
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _workers(url: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT nodeport FROM pg_dist_node WHERE groupid <> 0 AND isactive ORDER BY nodeid"
        )
        assert await conn.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'citus'")
    finally:
        await conn.close()
    return [r["nodeport"] for r in rows]


async def test_start_prints_a_working_url_adds_workers_and_stop_stops_every_node(
    cluster: object,  # the build is made (or found) once, by the session's cluster
) -> None:
    directory = Path(tempfile.mkdtemp(prefix="parley-cli-cluster-"))
    try:
        code, out, err = await _parley("start", "--workers", "1", "--dir", str(directory))
        assert code == 0, err
        url = out.strip()
        assert url.startswith("postgresql://") and url.endswith("/parley"), out
        assert len(await _workers(url)) == 1

        code, again, err = await _parley("start", "--workers", "2", "--dir", str(directory))
        assert code == 0, err
        assert again.strip() == url  # the same coordinator, one more worker
        ports = await _workers(url)
        assert len(ports) == 2 and len(set(ports)) == 2

        code, _, err = await _parley("stop", "--dir", str(directory))
        assert code == 0, err
        with pytest.raises((OSError, asyncpg.PostgresError)):
            await asyncpg.connect(url, timeout=5)
    finally:
        await _parley("stop", "--dir", str(directory))
        shutil.rmtree(directory, ignore_errors=True)


async def test_stop_without_a_cluster_says_so() -> None:
    directory = Path(tempfile.mkdtemp(prefix="parley-cli-none-"))
    try:
        code, _, err = await _parley("stop", "--dir", str(directory))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    assert code == 2 and "no cluster" in err
