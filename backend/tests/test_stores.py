"""SQL lives in stores: a statement written anywhere in the application outside a package's
store modules (`store.py`, `store_<part>.py`) fails here. The database's own side is not
scanned: migrations, the SQL functions' bodies (parley/sql/), the cluster's layout and the
connection pool itself (db.py, migrate.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.test_message_store import PARLEY, _docstrings

pytestmark = pytest.mark.unit

# The statement shapes the application writes; broad on purpose (a stray "SELECT ... FROM"
# in a service is what this exists to catch), narrow enough that prose and IPv6 literals pass.
SQL = re.compile(
    r"\bSELECT\b[\s\S]*?\b(FROM|parley_\w+\s*\()|\bINSERT\s+INTO\b|\bUPDATE\s+\w+(\s+\w+)?\s+SET\b"
    r"|\bDELETE\s+FROM\b|\bWITH\s+\w+\s+AS\s*\(|\bpg_notify\b|\bLISTEN\s+\w|\bNOTIFY\s+\w"
    r"|\bLOCK\s+TABLE\b|\bON\s+CONFLICT\b|\bpg_advisory\w*|\bRETURNING\b",
)
DATABASE_SIDE = ("migrations", "sql", "cluster")
INFRASTRUCTURE = {"db.py", "migrate.py"}


def is_store(path: Path) -> bool:
    return path.name == "store.py" or path.name.startswith("store_")


def statements(path: Path, root: Path = PARLEY) -> list[str]:
    """The SQL string literals of `path` (f-strings' parts included, docstrings not), each as
    `<file>:<line>: <start of the match>`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) not in prose and (match := SQL.search(node.value)) is not None:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {match.group(0)[:40]!r}")
    return found


def scanned(root: Path = PARLEY) -> list[Path]:
    return [
        p
        for p in sorted(root.rglob("*.py"))
        if not set(p.relative_to(root).parts[:-1]) & set(DATABASE_SIDE)
        and not (p.parent == root and p.name in INFRASTRUCTURE)
    ]


def test_statements_are_written_only_in_stores() -> None:
    outside = [hit for path in scanned() if not is_store(path) for hit in statements(path)]
    assert outside == []


def test_the_stores_are_scanned_and_hold_the_statements() -> None:
    # Not vacuous: every package with a database side has its store, and the scan reads them.
    stores = [p for p in scanned() if is_store(p)]
    packages = {p.parent.name for p in stores}
    assert {"accounts", "oauth", "push", "realtime", "tools", "assistant", "runs"} <= packages
    assert {"questions", "work", "chat", "conversations", "tasks", "messages"} <= packages
    assert all(statements(p) for p in stores if p.name == "store.py")


def test_the_scan_would_see_a_statement_outside_a_store(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    stray = tmp_path / "pkg" / "service.py"
    stray.write_text(
        'T = "tasks"\n_Q = f"SELECT id FROM {T} WHERE user_id = $1"\n'
        '_N = "SELECT pg_notify($1, $2)"\n'
        'def f():\n    """SELECT words FROM a docstring are prose."""\n'
        '    return "UPDATE tasks SET done = true", "host [::1]:8000"\n',
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "store.py").write_text('_Q = "DELETE FROM tasks"\n', encoding="utf-8")
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "0001.py").write_text('X = "INSERT INTO t VALUES (1)"\n')
    found = [h for p in scanned(tmp_path) if not is_store(p) for h in statements(p, tmp_path)]
    assert len(found) == 3 and all(h.startswith("pkg/service.py") for h in found)
