"""Schema fuzzing: schemathesis generates requests from /openapi.json (valid and invalid,
and sequences of them) against a real `parley serve` and checks every answer: no server
error, every response as the schema says (status code, content type, headers, body), auth
required where declared. Bounded by PARLEY_FUZZ_SECONDS (default 30).

By hand: `PARLEY_FUZZ_SECONDS=300 .venv/bin/pytest backend/tests/fuzz -m fuzz`."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import spawn_server, token_for

CONFIG = Path(__file__).with_name("schemathesis.toml")
ST = str(Path(sys.executable).with_name("st"))
USER = "fuzz"


@pytest.mark.fuzz
@pytest.mark.timeout(600)
async def test_fuzzing_the_openapi_schema_finds_nothing(migrated, db, tmp_path):
    seconds = os.environ.get("PARLEY_FUZZ_SECONDS", "30")
    _, base = await spawn_server(migrated, PARLEY_DEV_LOGIN="1")
    process = await asyncio.create_subprocess_exec(
        ST,
        "--config-file",
        str(CONFIG),
        "run",
        f"{base}/openapi.json",
        "--checks",
        "all",
        # These two judge how precisely the schema describes valid input, not the server:
        # rules like "not empty once trimmed" have no JSON Schema form, and the fixed
        # path user (the token's) makes schemathesis think an invalid one was accepted.
        "--exclude-checks",
        "positive_data_acceptance,negative_data_rejection",
        "--max-time",
        seconds,
        # One worker: schemathesis' threads can trip Python 3.11's parser (hypothesis reads
        # lambdas' source with ast.parse, which is not thread-safe there).
        "--workers",
        "1",
        "--request-timeout",
        "10",
        # Event streams never end by design; their cursors are covered by their own tests.
        "--exclude-path-regex",
        "/events$",
        "--report-dir",
        str(tmp_path),
        env={
            **os.environ,
            "PARLEY_FUZZ_TOKEN": token_for(USER, ttl=7200),
            "PARLEY_FUZZ_USER": USER,
        },
        cwd=tmp_path,  # schemathesis keeps a cache in its working directory
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    report = output.decode(errors="replace")
    assert process.returncode == 0, report[-20000:]
