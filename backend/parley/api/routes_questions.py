"""Questions put to the person (an agent's, or a work session's permission request): read,
long-polled for their answer, and answered."""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge
from fastapi import APIRouter, Query

from parley.api.answer_channel import AnswerChannelDep
from parley.api.deps import CurrentCaller, DbDep, PathPrincipal, SettingsDep, WaitsDep, WorkDep
from parley.api.errors import AUTHED, ERRORS
from parley.errors import InvalidInput
from parley.questions import answer as answering
from parley.questions.ask import wait_for_answer
from parley.questions.store import open_questions
from parley.questions.words import Decision
from parley.runs.schemas import PostedOut, QuestionAnswer, QuestionOut, question_json
from parley.schemas import message_json
from parley.stated import LONG_POLL_LIMIT

router = APIRouter(prefix="/api/{user_id}", tags=["agents"])

# A long poll's `wait`: at most PARLEY_LONG_POLL_MAX seconds (the schema says this server's).
Wait = Annotated[float, Ge(0), LONG_POLL_LIMIT]


def check_wait(wait: float, cap: float) -> float:
    if wait > cap:
        raise InvalidInput(
            f"wait must be at most {cap:g} seconds", details=[{"field": "wait"}], cap=cap
        )
    return wait


@router.get("/questions", response_model=list[QuestionOut], responses=ERRORS(*AUTHED))
async def list_open_questions(caller: CurrentCaller, db: DbDep) -> list[QuestionOut]:
    """What waits on the person: their open questions wherever they were asked (inbox, runs,
    threads, work sessions' permission requests), oldest first, at most 100. An agent's
    token lists only the questions that agent asked."""
    found = await open_questions(db, caller=caller)
    return [QuestionOut.model_validate(question_json(state)) for state in found]


@router.get("/questions/{question_id}", response_model=QuestionOut, responses=ERRORS(*AUTHED))
async def get_question(
    question_id: int,
    caller: CurrentCaller,
    db: DbDep,
    waits: WaitsDep,
    settings: SettingsDep,
    wait: Annotated[Wait, Query(description="Seconds to wait for an answer")] = 0,
) -> QuestionOut:
    """The question and its answer. With `wait`, returns as soon as it is answered, timed
    out or closed, else after `wait` seconds with `status: "open"` (ask again)."""
    state = await wait_for_answer(
        db,
        waits,
        caller=caller,
        question_id=question_id,
        wait_s=check_wait(wait, settings.long_poll_max),
    )
    return QuestionOut.model_validate(question_json(state))


@router.post(
    "/questions/{question_id}/answer",
    response_model=PostedOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 413),
)
async def answer_question(
    question_id: int,
    body: QuestionAnswer,
    principal: PathPrincipal,
    db: DbDep,
    settings: SettingsDep,
    work: WorkDep,
    channel: AnswerChannelDep,
) -> PostedOut:
    """Answer one of the person's questions, with `text`, or, for a work session's
    permission request, with `decision` (`allow`, `allow_session`, `deny`; text such as
    "yes" or "no" decides too). The answer is stored once as a `kind=answer` message
    replying to the question; a question already answered, timed out or closed is 409
    (`already_answered`, `question_closed`) and nothing is stored. Only the person answers:
    an agent's token is 403. A permission decision reaches its session at once. A service
    worker answering from a notification names its device (`X-Parley-Device`: the push
    subscription's id); it is kept with the answer (`meta.device`) when it is one of the
    person's own devices, and ignored otherwise. The audit trail records the answer as
    through `push_action` (with `X-Parley-Device`), `email_link` (`X-Parley-Via:
    email_link`, sent by the web UI for a question an emailed link opened), else `web` for
    the session cookie and `rest` for a bearer credential."""
    answered = await answering.answer(
        db,
        caller=principal.caller,
        question_id=question_id,
        text=body.text,
        decision=Decision(body.decision) if body.decision else None,
        max_chars=settings.max_message_chars,
        device=channel.device,
        sessions=work,
        via=channel.via,
        session=channel.session,
    )
    return PostedOut(**message_json(answered.answer), answered=question_id)
