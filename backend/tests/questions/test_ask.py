"""What the asker reads back: the decision an answered permission request carries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from parley.messages.store import StoredMessage
from parley.questions.ask import decision_of
from parley.questions.status import QuestionStatus
from parley.questions.store import QuestionState
from parley.questions.words import Decision

PERMISSION = {"type": "permission", "permission": {"tool": "Bash", "input": {}}}


def state_with(status: QuestionStatus, meta: dict[str, Any] | None) -> QuestionState:
    question = StoredMessage(
        id=5,
        conversation_id=1,
        user_id="ann",
        role="assistant",
        author="claude",
        kind="question",
        content="Claude wants to run `ls` — allow?",
        tool_calls=None,
        error=False,
        reply_to=None,
        meta=meta,
        created_at=datetime.now(UTC),
    )
    return QuestionState(
        question=question,
        status=status.value,
        answer=None,
        timeout_at=datetime.now(UTC),
        seconds_left=0.0,
        asked_by="claude-code",
        run_id=3,
    )


@pytest.mark.unit
@pytest.mark.parametrize("decision", list(Decision))
def test_an_answered_permission_carries_its_stored_decision(decision: Decision) -> None:
    meta = PERMISSION | {"answer": decision.value}
    assert decision_of(state_with(QuestionStatus.answered, meta)) is decision


@pytest.mark.unit
def test_no_decision_unless_answered_with_one() -> None:
    with_answer = PERMISSION | {"answer": "allow"}
    for status in (QuestionStatus.open, QuestionStatus.timed_out, QuestionStatus.closed):
        assert decision_of(state_with(status, with_answer)) is None
    assert decision_of(state_with(QuestionStatus.answered, PERMISSION)) is None  # text only
    assert decision_of(state_with(QuestionStatus.answered, None)) is None
    forged = PERMISSION | {"answer": "always"}  # not a Decision: never read as one
    assert decision_of(state_with(QuestionStatus.answered, forged)) is None
