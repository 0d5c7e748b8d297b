"""The one text validator (`parley.text.clean`) every service runs on text it stores."""

from __future__ import annotations

import pytest

from parley import conversations, search, tasks
from parley.errors import InvalidInput, TooLarge
from parley.runs.messages import clean_text
from parley.text import clean

pytestmark = pytest.mark.unit


def test_trims_and_keeps_the_text() -> None:
    assert clean("  hello\n", field="text", max_chars=10) == "hello"
    assert clean(" a \n b ", field="title", max_chars=10, one_line=True) == "a b"


@pytest.mark.parametrize("bad", ["", "   \n\t", None, 42])
def test_empty_or_not_text_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(InvalidInput, match="Title must not be empty") as refused:
        clean(bad, field="title", label="Title", max_chars=10)
    assert refused.value.extra["details"] == [{"field": "title"}]


def test_too_long_is_invalid_or_too_large() -> None:
    with pytest.raises(InvalidInput, match="at most 3"):
        clean("abcd", field="title", max_chars=3)
    with pytest.raises(TooLarge, match="longer than 3") as refused:
        clean("abcd", field="text", max_chars=3, too_large=True)
    assert refused.value.status == 413


@pytest.mark.parametrize("bad", ["a\x00b", "x\ud800", "\udfffy"])
def test_nul_and_lone_surrogates_are_refused_everywhere(bad: str) -> None:
    """Each service's cleaner is the one validator: none lets unstorable text through (an
    agent's message once did, and its lone surrogate failed on insert as a 500)."""
    cleaners = [
        lambda: clean_text(bad, max_chars=100),
        lambda: conversations.clean_title(bad),
        lambda: tasks.clean_title(bad),
        lambda: tasks.clean_description(bad),
        lambda: search.clean_query(bad),
    ]
    for cleaner in cleaners:
        with pytest.raises(InvalidInput, match=r"NUL|surrogate"):
            cleaner()


def test_a_surrogate_pair_is_text() -> None:
    assert clean("\U0001f600", field="text", max_chars=10) == "\U0001f600"
