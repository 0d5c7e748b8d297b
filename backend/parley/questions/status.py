"""The one state machine every question moves through: open, then exactly one of answered,
timed_out or closed (its session ended, its prompt was superseded, its asker withdrew it)."""

from __future__ import annotations

from enum import StrEnum

from parley.errors import ParleyError


class QuestionStatus(StrEnum):
    open = "open"
    answered = "answered"
    timed_out = "timed_out"  # nobody answered before its deadline
    closed = "closed"  # its session ended or a newer prompt superseded it


class AlreadyAnswered(ParleyError):
    status = 409
    code = "already_answered"


class QuestionClosed(ParleyError):
    status = 409
    code = "question_closed"


def move(current: QuestionStatus, to: QuestionStatus) -> QuestionStatus:
    """The one transition rule: only an open question moves, and only out of `open`."""
    if current is not QuestionStatus.open or to is QuestionStatus.open:
        raise ValueError(f"A question cannot go from {current} to {to}")
    return to


def refusal_for(status: QuestionStatus, question_id: int) -> ParleyError:
    """Why an answer to a question that is no longer open is refused (409)."""
    if status is QuestionStatus.answered:
        return AlreadyAnswered(
            f"Question {question_id} was already answered", question_id=question_id
        )
    return QuestionClosed(
        f"Question {question_id} is {status.value.replace('_', ' ')}: it takes no answer",
        question_id=question_id,
        question_status=status.value,
    )
