"""`./dev.sh` as a newcomer runs it, in a copy of the repository whose web UI is a stand-in
(`frontend/package.json` with its own build and start scripts): where it listens, what it
warns about, and when it says the UI is ready."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
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
    assert stamp == _installed(root / "backend" / "pyproject.toml"), "run scripts/setup.sh first"
    (root / ".venv").symlink_to(ROOT / ".venv")
    (root / "frontend" / "ui.py").write_text(SLOW_UI)
    scripts = {"build": build, "start": "python3 ui.py"}
    (root / "frontend" / "package.json").write_text(json.dumps({"scripts": scripts}))
    return root


def _installed(pyproject: Path) -> str:
    """setup.sh's stamp: the pyproject and the install's mode (scripts/setup.sh)."""
    import hashlib

    mode = re.search(r'^install_mode="([^"]*)"', (ROOT / "scripts" / "setup.sh").read_text(), re.M)
    assert mode is not None
    return hashlib.sha256(pyproject.read_bytes() + f"{mode.group(1)}\n".encode()).hexdigest()


# What dev.sh derives from its ports unless the person set it: the tests' own are not the person's.
DERIVED = ("PARLEY_PUBLIC_URL", "PARLEY_WEB_ORIGINS", "PARLEY_URL", "HOST", "PORT")


def _environment(**env: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in DERIVED}, **env}


async def _start(root: Path, migrated: str, **env: str) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        "bash",
        str(root / "dev.sh"),
        cwd=root,
        env=_environment(**{"DATABASE_URL": migrated, "PARLEY_API_PORT": str(free_port()), **env}),
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
    port, api_port = free_port(), free_port()
    process = await _start(root, migrated, PORT=str(port), PARLEY_API_PORT=str(api_port))
    assert process.stdout is not None and process.stderr is not None
    # By name: passkeys refuse an IP address as their relying party.
    url = f"http://localhost:{port}/"
    while True:
        line = (await asyncio.wait_for(process.stdout.readline(), timeout=90)).decode()
        assert line, (await process.stderr.read()).decode()
        if "web UI on" in line:
            break
    assert f"web UI on {url.rstrip('/')} " in line
    api = f"http://127.0.0.1:{api_port}"
    async with httpx.AsyncClient() as client:
        assert (await client.get(url)).status_code == 200  # answering when announced
        # The API names itself at the port it was given (MCP clients' OAuth starts there).
        metadata = (await client.get(f"{api}/.well-known/oauth-protected-resource/mcp")).json()
        assert metadata["resource"] == f"{api}/mcp"
    written = (root / ".parley" / "dev.env").read_text()
    assert f"export PARLEY_URL='{api}'" in written
    # Another shell, with what dev.sh wrote down: its invite links are on the web UI it serves.
    create = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        ". .parley/dev.env && .venv/bin/parley user create newcomer",
        cwd=root,
        env={k: v for k, v in _environment().items() if k != "DATABASE_URL"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    said, err = await asyncio.wait_for(create.communicate(), timeout=60)
    assert create.returncode == 0, err.decode()
    assert f" {url}invite/" in said.decode()
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


def _derived(**env: str) -> dict[str, str]:
    """What scripts/dev-env.sh (which dev.sh sources) exports for this environment."""
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "dev-env.sh")],
        env=_environment(**env),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(
        line.removeprefix("export ").replace("'", "").split("=", 1) for line in out.splitlines()
    )


def test_addresses_follow_the_ports_unless_set() -> None:
    derived = _derived(PORT="3400", PARLEY_API_PORT="8400")
    assert derived["PARLEY_PUBLIC_URL"] == "http://127.0.0.1:8400"
    assert derived["PARLEY_URL"] == "http://127.0.0.1:8400"
    # The first origin makes invite links and is the passkeys' relying party: a name.
    assert derived["PARLEY_WEB_ORIGINS"] == "http://localhost:3400,http://127.0.0.1:3400"
    assert _derived()["PARLEY_PUBLIC_URL"] == "http://127.0.0.1:8000"
    network = _derived(HOST="10.1.2.3", PORT="3400")["PARLEY_WEB_ORIGINS"]
    assert network.split(",")[-1] == "http://10.1.2.3:3400"
    mine = _derived(
        PARLEY_API_PORT="8400",
        PARLEY_PUBLIC_URL="https://parley.example.com",
        PARLEY_WEB_ORIGINS="https://chat.example.com",
        PARLEY_URL="http://10.0.0.9:8000",
    )
    assert mine["PARLEY_PUBLIC_URL"] == "https://parley.example.com"
    assert mine["PARLEY_WEB_ORIGINS"] == "https://chat.example.com"
    assert mine["PARLEY_URL"] == "http://10.0.0.9:8000"
