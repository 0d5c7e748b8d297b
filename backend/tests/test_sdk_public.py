"""Parley uses only what claude-agent-sdk makes public: its `_internal` package changes in any
release without notice, so a module reaching into it (an import, a lazy `importlib` call, a
logger named after one of its modules) would break on an upgrade nobody thought risky."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1] / "parley"
PRIVATE = "claude_agent_sdk._internal"


def reaches_in(source: str) -> list[str]:
    """What in `source` names the SDK's private package: imported modules and string literals."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith(PRIVATE)]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PRIVATE):
            found.append(str(node.module))
        elif isinstance(node, ast.ImportFrom) and node.module == "claude_agent_sdk":
            found += [f"claude_agent_sdk.{a.name}" for a in node.names if a.name == "_internal"]
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and PRIVATE in node.value
        ):
            found.append(node.value)
    return found


def test_the_check_sees_every_way_in() -> None:
    source = (
        "import claude_agent_sdk._internal.query\n"
        "from claude_agent_sdk._internal.message_parser import parse_message\n"
        "from claude_agent_sdk import _internal\n"
        "logging.getLogger('claude_agent_sdk._internal.query')\n"
        "from claude_agent_sdk import ClaudeSDKClient\n"
    )
    assert len(reaches_in(source)) == 4


def test_no_module_of_parley_reaches_into_the_sdks_internals() -> None:
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 50  # the package was found
    found = {
        str(path.relative_to(ROOT.parent)): hits
        for path in files
        if (hits := reaches_in(path.read_text(encoding="utf-8")))
    }
    assert found == {}
