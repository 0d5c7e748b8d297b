"""One statement writes each of the shared tables' rows, so a new column or rule for a
conversation or a run is added in one place (`conversations.store.insert`,
`runs.store.insert`), whichever mode or path makes it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PARLEY = Path(__file__).resolve().parents[1] / "parley"


def _inserts(table: str) -> list[str]:
    """Where the application (not a migration) inserts into `table`."""
    pattern = re.compile(rf"INSERT\s+INTO\s+{table}\b", re.IGNORECASE)
    return sorted(
        str(path.relative_to(PARLEY))
        for path in [*PARLEY.rglob("*.py"), *PARLEY.rglob("*.sql")]
        if "migrations" not in path.parts
        for _ in pattern.finditer(path.read_text(encoding="utf-8"))
    )


def test_one_insert_into_conversations() -> None:
    # `parley_start_turn` makes a new chat in the same statement that claims it (one trip).
    assert _inserts("conversations") == ["conversations/store.py", "sql/start_turn.sql"]


def test_one_insert_into_agent_runs() -> None:
    assert _inserts("agent_runs") == ["runs/store.py"]
