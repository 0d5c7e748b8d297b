"""`messages` is read and written through its one store (`parley.messages.store`): a
statement on the table, or a call of a database function that writes it, anywhere else in
the application fails here. Migrations and the functions' own bodies (parley/sql/) are the
database's side and are not scanned."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PARLEY = Path(__file__).resolve().parents[1] / "parley"
STORE = PARLEY / "messages" / "store.py"

ON_THE_TABLE = re.compile(r"\b(FROM|INTO|UPDATE|JOIN)\s+messages\b", re.IGNORECASE)
# A call of a function that stores a message (parley/sql/*.sql); cluster/layout.py only
# names them, with their argument types, to place them.
WRITERS = re.compile(
    r"\b(SELECT|FROM|PERFORM)\s+parley_(append_message|post_message|start_turn|finish_turn"
    r"|copy_messages|show_branch)\s*\(",
    re.IGNORECASE,
)


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def sql_on_messages(path: Path, root: Path = PARLEY) -> list[str]:
    """The string literals of `path` (f-strings' parts included, docstrings not) that touch
    `messages`, each as `<file>:<line>: <match>`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    hits: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in prose:
            continue
        for pattern in (ON_THE_TABLE, WRITERS):
            hits += [
                f"{path.relative_to(root)}:{node.lineno}: {m.group(0)}"
                for m in pattern.finditer(node.value)
            ]
    return hits


def application_modules() -> list[Path]:
    return [p for p in sorted(PARLEY.rglob("*.py")) if "migrations" not in p.parts]


def test_only_the_store_touches_messages() -> None:
    elsewhere = [
        hit for path in application_modules() if path != STORE for hit in sql_on_messages(path)
    ]
    assert elsewhere == []


def test_the_scan_sees_the_stores_statements() -> None:
    # Not vacuous: the very patterns find the store's reads, writes and function calls.
    found = " ".join(sql_on_messages(STORE))
    for needle in ("FROM messages", "UPDATE messages", "JOIN messages", "parley_append_message"):
        assert needle in found


def test_the_scan_would_see_a_statement_elsewhere(tmp_path: Path) -> None:
    stray = tmp_path / "stray.py"
    stray.write_text(
        'from x import y\n_Q = f"SELECT {y} FROM messages m WHERE m.id = $1"\n'
        '_W = "SELECT parley_post_message($1)"\n',
        encoding="utf-8",
    )
    assert len(sql_on_messages(stray, root=tmp_path)) == 2
