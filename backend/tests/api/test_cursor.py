"""Reading a resume cursor (Last-Event-ID or ?after=) for the event streams."""

from __future__ import annotations

import pytest

from parley.api.routes_events import MAX_MESSAGE_ID, _message_id, parse_cursor
from parley.errors import ParleyError

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("value", "expected"),
    [("42", 42), ("0", 0), ("007", 7), (str(MAX_MESSAGE_ID), MAX_MESSAGE_ID)],
)
def test_message_ids(value, expected):
    assert _message_id(value) == expected


@pytest.mark.parametrize("value", ["-1", "1.5", "abc", "²", str(MAX_MESSAGE_ID + 1), "9" * 30])
def test_not_message_ids(value):
    assert _message_id(value) is None


def test_last_event_id_wins_over_after_and_a_bad_one_is_refused():
    assert parse_cursor(5, " 9 ") == 9
    assert parse_cursor(5, None) == 5
    assert parse_cursor(None, "  ") is None
    with pytest.raises(ParleyError) as bad:
        parse_cursor(None, "x")
    assert (bad.value.status, bad.value.code) == (400, "bad_last_event_id")
