"""The `parley` command's parts that need no server."""

from __future__ import annotations

import asyncio
import json
import os

from tests.conftest import PARLEY


async def test_openapi_prints_the_schema_without_a_database(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PARLEY_DATA_DIR"] = str(tmp_path / "never-created")
    process = await asyncio.create_subprocess_exec(
        PARLEY, "openapi", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    schema = json.loads(out)
    assert "/api/{user_id}/chat" in schema["paths"]
    assert "MessageOut" in schema["components"]["schemas"]
    assert not (tmp_path / "never-created").exists()
