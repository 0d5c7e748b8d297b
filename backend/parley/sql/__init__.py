"""The database's functions, one `.sql` file each: the file holds the function's current body.

Migrations apply them with `apply` (CREATE OR REPLACE), so the body is read and reviewed as SQL
and a change to one is a change to its file plus a migration that re-applies it. Older
migrations keep the bodies they applied as strings; tests/test_sql_functions.py fails when a
function of the migrated database (`parley_<name>`) is not its file `<name>.sql`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def source(name: str) -> str:
    """The text of `<name>.sql`."""
    return (HERE / f"{name}.sql").read_text(encoding="utf-8")


def apply(execute: Callable[[str], Any], *names: str) -> None:
    """Run each file through `execute` (alembic's `op.execute`)."""
    for name in names:
        execute(source(name))
