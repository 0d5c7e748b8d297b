"""`parley hook claude-code` runs before every tool call Claude Code makes: what it loads is
its cost. These hold it to the standard library, and its variables to `Settings`' names."""

from __future__ import annotations

import subprocess
import sys

import pytest

from parley.config import Settings
from parley.hooks.claude_code import hook_environment

pytestmark = pytest.mark.unit

HEAVY = ("pydantic", "pydantic_settings", "httpx", "asyncio", "asyncpg", "fastapi", "parley.config")


def test_the_hook_path_of_the_command_imports_nothing_heavy() -> None:
    # The console script's own import, then the hook with no event: it answers at once.
    probe = (
        "import sys\n"
        "from parley.cli import main\n"
        "sys.argv = ['parley', 'hook', 'claude-code', '--machine', 'm']\n"
        "code = main()\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input="{}", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_the_hook_reads_the_variables_settings_declares_with_the_same_defaults() -> None:
    fields = {field.alias: field.default for field in Settings.model_fields.values()}
    found = hook_environment({})
    assert found.url == fields["PARLEY_URL"]
    assert found.token is fields["PARLEY_TOKEN"] is None
    assert found.unreachable == fields["PARLEY_HOOK_UNREACHABLE"]
    given = hook_environment(
        {"PARLEY_URL": "https://p.example", "PARLEY_TOKEN": "k", "PARLEY_HOOK_UNREACHABLE": "deny"}
    )
    assert (given.url, given.token, given.unreachable) == ("https://p.example", "k", "deny")
    assert hook_environment({"PARLEY_HOOK_UNREACHABLE": "maybe"}).unreachable == "ask"
