"""The one state machine of a question, and why an answer to a closed one is refused."""

from __future__ import annotations

import pytest

from parley.questions.status import QuestionStatus, move, refusal_for


@pytest.mark.unit
def test_only_an_open_question_moves_and_only_once() -> None:
    for end in (QuestionStatus.answered, QuestionStatus.timed_out, QuestionStatus.closed):
        assert move(QuestionStatus.open, end) is end
        for to in QuestionStatus:
            with pytest.raises(ValueError):
                move(end, to)
    with pytest.raises(ValueError):
        move(QuestionStatus.open, QuestionStatus.open)
    assert refusal_for(QuestionStatus.answered, 7).code == "already_answered"
    for closed in (QuestionStatus.timed_out, QuestionStatus.closed):
        refused = refusal_for(closed, 7)
        assert refused.status == 409 and refused.code == "question_closed"


@pytest.mark.unit
@pytest.mark.parametrize(
    "end", [QuestionStatus.answered, QuestionStatus.timed_out, QuestionStatus.closed]
)
def test_an_open_question_ends_once_and_its_end_is_final(end: QuestionStatus) -> None:
    assert move(QuestionStatus.open, end) is end
    for to in QuestionStatus:
        with pytest.raises(ValueError, match=f"from {end} to {to}"):
            move(end, to)


@pytest.mark.unit
def test_each_closed_state_refuses_an_answer_in_words_that_say_why() -> None:
    answered = refusal_for(QuestionStatus.answered, 9)
    assert (answered.status, answered.code) == (409, "already_answered")
    assert answered.extra == {"question_id": 9}
    timed_out = refusal_for(QuestionStatus.timed_out, 9)
    assert "timed out" in timed_out.message
    assert timed_out.extra == {"question_id": 9, "question_status": "timed_out"}
    closed = refusal_for(QuestionStatus.closed, 9)
    assert closed.extra["question_status"] == "closed" and "takes no answer" in closed.message
