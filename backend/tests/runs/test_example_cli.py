"""The example agents' command line: the address they use is documented, and a Parley that is
not there is one clear line, not a traceback."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

from tests.conftest import _SPAWNED, free_port
from tests.runs.test_agent_processes import EXAMPLES

SCRIPTS = {
    "mcp_agent.py": ["--token", "t"],
    "rest_agent.py": ["--token", "t", "--user", "alice"],
    "agent_key.py": ["--user", "alice", "--agent", "planner"],
}


async def _run(*args: str, **env_vars: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_URL"} | env_vars
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
    code, _, err = await _run(script, "--url", url, *SCRIPTS[script])
    assert code == 2
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: cannot reach Parley at {url}")
    assert "--url or PARLEY_URL" in line


async def test_parley_url_is_where_they_go_when_no_url_is_given() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    code, _, err = await _run("agent_key.py", *SCRIPTS["agent_key.py"], PARLEY_URL=url)
    assert code == 2
    assert err.startswith(f"error: cannot reach Parley at {url}")


async def test_agent_key_makes_a_working_key_as_a_program(make_server) -> None:
    """A program, not a browser: it sends no web UI Origin (this web UI is on :3400, where a
    cookie's write would have to come from), yet the key is made: the sign-in's token is its
    credential."""
    web = {"PARLEY_DEV_LOGIN": "1", "PARLEY_WEB_ORIGINS": "http://localhost:3400"}
    async with make_server(**web) as server:
        code, out, err = await _run(
            "agent_key.py", *SCRIPTS["agent_key.py"], PARLEY_URL=server.base_url
        )
        assert code == 0, err
        secret = out.strip()
        assert secret.startswith("pk_parley_")
        bearer = {"Authorization": f"Bearer {secret}"}
        me = (await server.client.get("/api/auth/me", headers=bearer)).json()
        assert (me["user_id"], me["agent"]) == ("alice", "planner")
