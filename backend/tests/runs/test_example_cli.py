"""The example agents' command line: the address they use is documented, and a Parley that is
not there is one clear line, not a traceback."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from tests.conftest import _SPAWNED, free_port
from tests.runs.test_agent_processes import EXAMPLES

SCRIPTS = {"mcp_agent.py": [], "rest_agent.py": ["--user", "alice"]}


async def _run(*args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_URL"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=EXAMPLES,
        start_new_session=True,
    )
    _SPAWNED.append(process)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("script", sorted(SCRIPTS))
async def test_help_shows_the_default_address_and_parley_url(script: str) -> None:
    code, out, _ = await _run(script, "--help")
    assert code == 0
    assert "default: http://127.0.0.1:8000" in " ".join(out.split())
    assert "PARLEY_URL" in out


@pytest.mark.parametrize("script", sorted(SCRIPTS))
async def test_an_unreachable_parley_is_one_line(script: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    code, _, err = await _run(script, "--url", url, "--token", "t", *SCRIPTS[script])
    assert code == 2
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: cannot reach Parley at {url}")
    assert "--url or PARLEY_URL" in line
