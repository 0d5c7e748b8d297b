"""How a person's replies read as decisions, and the words each decision is shown as."""

from __future__ import annotations

import pytest

from parley.questions.words import DECISION_TEXT, Decision, parse_decision


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "decision"),
    [
        ("Allow", Decision.allow),
        ("yes please", Decision.allow),
        ("ok", Decision.allow),
        ("allow always", Decision.allow_session),
        ("Yes, allow for this session.", Decision.allow_session),
        ("deny", Decision.deny),
        ("No.", Decision.deny),
        ("don't", Decision.deny),
        ("stop", Decision.deny),
        ("what does it do?", None),
        ("yesterday's build", None),
        ("  YES!!! ", Decision.allow),
        ("y", Decision.allow),
        ("n", Decision.deny),
        ("Go ahead", Decision.allow),
        ("okay, do it every time", Decision.allow_session),
        ("approve for the session", Decision.allow_session),
        ("no, not always", Decision.deny),  # a refusal wins over "always"
        ("do not", Decision.deny),
        ("cancel that", Decision.deny),
        ("allowed?", None),  # whole words only
        ("nope", None),
        ("notes first", None),
        ("", None),
        ("I said yes", None),  # a decision opens the reply
    ],
)
def test_replies_read_as_decisions(text: str, decision: Decision | None) -> None:
    assert parse_decision(text) == decision


@pytest.mark.unit
def test_every_decision_has_the_words_the_ui_shows_and_reads_back() -> None:
    for decision, words in DECISION_TEXT.items():
        assert parse_decision(words) is decision
