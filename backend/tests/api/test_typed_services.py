"""The API reads what its lifespan made only through the typed `ApiServices` (parley/services.py,
through `parley.api.deps`), never from `app.state` by name: a misspelt or missing name there
is an AttributeError at request time that no type checker sees."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

API = Path(__file__).resolve().parents[2] / "parley" / "api"


def untyped_reads(source: str) -> list[str]:
    """Each `<x>.app.state` / `app.state` use, and each `getattr` on a `.state`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "state":
            owner = node.value
            if (isinstance(owner, ast.Name) and owner.id == "app") or (
                isinstance(owner, ast.Attribute) and owner.attr == "app"
            ):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr"}
            and node.args
            and "state" in ast.unparse(node.args[0])
        ):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_check_sees_each_way_of_reading_app_state() -> None:
    samples = (
        "request.app.state.hub",
        "app.state.db",
        'getattr(request.app.state, "oidc", None)',
        'getattr(scope["app"].state, "mcp_http", None)',
        "request.app.state.oidc = 1",
    )
    for sample in samples:
        assert untyped_reads(sample), sample
    assert not untyped_reads("services.hub; request.state; from_scope(request.scope)")


def test_no_module_under_api_reads_app_state_by_name() -> None:
    modules = sorted(API.rglob("*.py"))
    assert len(modules) > 20  # the routes are where they are looked for
    found = {
        str(path.relative_to(API)): reads
        for path in modules
        if (reads := untyped_reads(path.read_text(encoding="utf-8")))
    }
    assert not found, found
