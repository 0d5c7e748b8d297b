"""Every question is asked through `questions.ask.ask`: an agent's (`ask_user`, `POST
.../messages` with `kind=question`), a child's (`ask_parent`), an escalated delegation's and a
work session's permission request. Read from the source: the one place that stores a question
message is the `Place` an `ask` is given."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PARLEY = Path(__file__).resolve().parents[2] / "parley"
# The places an `ask` puts its question (`questions.ask.Place`), and `ask` itself.
PLACES = {"runs/messages.py", "questions/store.py", "questions/ask.py"}


def test_a_question_is_stored_only_by_the_places_ask_is_given() -> None:
    pattern = re.compile(r"""\bkind\s*=\s*(["']question["']|MessageKind\.question\b)""")
    found = sorted(
        str(path.relative_to(PARLEY))
        for path in PARLEY.rglob("*.py")
        if "migrations" not in path.parts and pattern.search(path.read_text())
    )
    outside = [p for p in found if p not in PLACES]
    assert not outside, f"a question written around questions.ask: {outside}"


def test_every_door_that_asks_calls_ask() -> None:
    for door in ("modes/threads.py", "runs/delegations.py", "tools/agent_tools.py"):
        assert "asking.ask(" in (PARLEY / door).read_text(), door
