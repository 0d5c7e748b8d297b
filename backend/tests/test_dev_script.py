"""`./dev.sh` as a newcomer runs it, in a copy of the repository whose web UI is a stand-in
(`frontend/package.json` with its own build and start scripts): where it listens, what it
warns about, and when it says the UI is ready."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import httpx

from tests.conftest import _SPAWNED, free_port

ROOT = Path(__file__).resolve().parents[2]
# A web UI that answers only after a while, on the host it is given (`npm start -- -H h`).
SLOW_UI = """
import http.server, os, sys, time
time.sleep(1.5)
host = sys.argv[sys.argv.index("-H") + 1]
handler = http.server.SimpleHTTPRequestHandler
http.server.ThreadingHTTPServer((host, int(os.environ["PORT"])), handler).serve_forever()
"""


def _checkout(tmp_path: Path, build: str) -> Path:
    """dev.sh and what it runs, the project's own venv, and a stand-in web UI."""
    root = tmp_path / "parley"
    (root / "backend").mkdir(parents=True)
    (root / "frontend").mkdir()
    shutil.copy(ROOT / "dev.sh", root / "dev.sh")
    shutil.copytree(ROOT / "scripts", root / "scripts")
    shutil.copy(ROOT / "backend" / "pyproject.toml", root / "backend" / "pyproject.toml")
    stamp = (ROOT / ".venv" / ".parley-installed").read_text().strip()
    assert stamp == _sha256(root / "backend" / "pyproject.toml"), "run scripts/setup.sh first"
    (root / ".venv").symlink_to(ROOT / ".venv")
    (root / "frontend" / "ui.py").write_text(SLOW_UI)
    scripts = {"build": build, "start": "python3 ui.py"}
    (root / "frontend" / "package.json").write_text(json.dumps({"scripts": scripts}))
    return root


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


async def _start(root: Path, migrated: str, **env: str) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        "bash",
        str(root / "dev.sh"),
        cwd=root,
        env={**os.environ, "DATABASE_URL": migrated, "PARLEY_API_PORT": str(free_port()), **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    _SPAWNED.append(process)
    return process


async def test_a_failing_build_is_shown_and_no_url_is_printed(tmp_path, migrated):
    root = _checkout(tmp_path, build="echo 'Type error: x is not a string' && exit 1")
    process = await _start(root, migrated)
    out, err = await asyncio.wait_for(process.communicate(), timeout=90)
    assert process.returncode == 1
    assert "Type error: x is not a string" in err.decode()
    assert "failed to build" in err.decode()
    assert "web UI on" not in out.decode()


async def test_the_url_is_printed_once_the_ui_answers_on_loopback(tmp_path, migrated):
    root = _checkout(tmp_path, build="true")
    port = free_port()
    process = await _start(root, migrated, PORT=str(port))
    assert process.stdout is not None and process.stderr is not None
    url = f"http://127.0.0.1:{port}/"
    while True:
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=90)).decode()
        assert line, (await process.stderr.read()).decode()
        if "web UI on" in line:
            break
    assert url.rstrip("/") in line
    async with httpx.AsyncClient() as client:
        assert (await client.get(url)).status_code == 200  # answering when announced
    process.terminate()
    _, err = await asyncio.wait_for(process.communicate(), timeout=30)
    assert "WARNING" not in err.decode()


async def test_another_host_with_dev_sign_in_is_warned_about(tmp_path, migrated):
    root = _checkout(tmp_path, build="exit 1")
    process = await _start(root, migrated, HOST="0.0.0.0")
    _, err = await asyncio.wait_for(process.communicate(), timeout=90)
    assert "WARNING: HOST=0.0.0.0 exposes passwordless dev sign-in" in err.decode()
    quiet = await _start(root, migrated, HOST="0.0.0.0", PARLEY_DEV_LOGIN="0")
    _, err = await asyncio.wait_for(quiet.communicate(), timeout=90)
    assert "WARNING" not in err.decode()


async def test_a_build_of_unchanged_sources_is_reused(tmp_path, migrated):
    # The stand-in build leaves a BUILD_ID, as `next build` does, and counts its runs.
    build = "mkdir -p .next && echo id > .next/BUILD_ID && echo built >> ../builds.txt"
    root = _checkout(tmp_path, build=build)
    builds = root / "builds.txt"

    async def start_and_stop() -> str:
        process = await _start(root, migrated, PORT=str(free_port()))
        assert process.stdout is not None
        said = ""
        while "web UI on" not in said:
            line = (await asyncio.wait_for(process.stdout.readline(), timeout=90)).decode()
            assert line, said
            said += line
        process.terminate()
        await asyncio.wait_for(process.communicate(), timeout=30)
        return said

    assert "building the web UI" in await start_and_stop()
    assert "reusing it" in await start_and_stop()
    assert builds.read_text().count("built") == 1
    (root / "frontend" / "ui.py").write_text(SLOW_UI + "\n# changed\n")
    assert "building the web UI" in await start_and_stop()
    assert builds.read_text().count("built") == 2
