"""Delegation threads over REST: a parent run hands work to another agent."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from parley.api.deps import CurrentCaller, DbDep, HubDep, SettingsDep, WaitsDep
from parley.api.errors import AUTHED, ERRORS
from parley.api.routes_questions import Wait, check_wait
from parley.auth import Caller
from parley.db import Database
from parley.runs import delegations
from parley.runs.messages import wait_for_messages
from parley.runs.schemas import (
    DelegationCreate,
    DelegationOut,
    NextDelegation,
    ThreadClose,
    ThreadResult,
    delegation_json,
)
from parley.schemas import BIGINT_END, MessageOut
from parley.stated import stated

router = APIRouter(prefix="/api/{user_id}", tags=["delegations"])
WaitFor = Annotated[Wait, Query(description="Seconds to wait")]
Claimer = Annotated[str, stated(pattern=delegations.CLAIMER_PATTERN)]


@router.post(
    "/runs/{run_id}/delegations",
    response_model=DelegationOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409, 413),
)
async def delegate(
    run_id: int, body: DelegationCreate, caller: CurrentCaller, db: DbDep, settings: SettingsDep
) -> DelegationOut:
    """From your run, hand `task` to `agent`: a `delegation` thread and a child run, pending
    until one of that agent's processes claims it (`GET .../delegations/next`)."""
    made = await delegations.delegate(
        db,
        caller=caller,
        run_id=run_id,
        agent=body.agent,
        task=body.task,
        timeout_s=body.timeout_s,
        max_chars=settings.max_message_chars,
    )
    return DelegationOut.model_validate(delegation_json(made))


@router.get("/delegations/next", response_model=NextDelegation, responses=ERRORS(*AUTHED))
async def next_delegation(
    caller: CurrentCaller,
    db: DbDep,
    waits: WaitsDep,
    settings: SettingsDep,
    wait: WaitFor = 0,
    claimer: Annotated[
        Claimer | None,
        Query(description="Your process's own key: a claim whose answer you lost comes back"),
    ] = None,
) -> NextDelegation:
    """Claim the oldest pending delegation addressed to your agent (each goes to exactly one
    caller); waits up to `wait` seconds for one; `{"delegation": null}` if none came. The
    claim holds once you act in the thread (write, status, read, or `POST .../ack`); until
    then the same `claimer` gets it again first, and after PARLEY_CLAIM_LEASE_SECONDS it is
    open to every process of your agent again."""
    found = await delegations.next_delegation(
        db,
        waits,
        caller=caller,
        wait_s=check_wait(wait, settings.long_poll_max),
        lease_s=settings.claim_lease_seconds,
        claimer=claimer,
    )
    return NextDelegation(
        delegation=DelegationOut.model_validate(delegation_json(found)) if found else None
    )


@router.get("/delegations/{thread_id}", response_model=DelegationOut, responses=ERRORS(*AUTHED))
async def get_thread(
    thread_id: int,
    caller: CurrentCaller,
    db: DbDep,
    hub: HubDep,
    settings: SettingsDep,
    wait: WaitFor = 0,
) -> DelegationOut:
    """The thread; with `wait`, returns once it closes or has a question for the parent.
    Waiting counts as its agent being heard from (its run does not go silent meanwhile)."""
    state = await delegations.wait_for_child(
        db,
        hub,
        caller=caller,
        thread_id=thread_id,
        wait_s=check_wait(wait, settings.long_poll_max),
    )
    return DelegationOut.model_validate(delegation_json(state.delegation, state.open_question))


@router.get(
    "/delegations/{thread_id}/messages", response_model=list[MessageOut], responses=ERRORS(*AUTHED)
)
async def read_thread(
    thread_id: int,
    caller: CurrentCaller,
    db: DbDep,
    hub: HubDep,
    settings: SettingsDep,
    after: Annotated[int, Query(ge=0, lt=BIGINT_END)] = 0,
    wait: WaitFor = 0,
) -> list[MessageOut]:
    """Long-polls like a run's messages."""
    check_wait(wait, settings.long_poll_max)
    state = await delegations.get_thread(db, caller=caller, thread_id=thread_id)
    await delegations.heard_from(db, caller=caller, thread=state.delegation, wait_s=wait)
    found = await wait_for_messages(
        db, hub, user_id=caller.user_id, conversation_id=thread_id, after=after, wait_s=wait
    )
    return [MessageOut.model_validate(m) for m in found]


@router.post(
    "/delegations/{thread_id}/ack", response_model=DelegationOut, responses=ERRORS(*AUTHED, 409)
)
async def acknowledge(thread_id: int, caller: CurrentCaller, db: DbDep) -> DelegationOut:
    """The child took up the delegation it claimed: it is no longer re-delivered and its
    claim no longer lapses (any first write or read of the thread does the same)."""
    found = await delegations.acknowledge_claim(db, caller=caller, thread_id=thread_id)
    return DelegationOut.model_validate(delegation_json(found))


async def _close(
    thread_id: int,
    outcome: str,
    text: str | None,
    caller: Caller,
    db: Database,
    max_chars: int,
    question_timeout: float,
) -> DelegationOut:
    closed = await delegations.close_thread(
        db,
        caller=caller,
        thread_id=thread_id,
        outcome=outcome,
        text=text,
        max_chars=max_chars,
        question_timeout=question_timeout,
    )
    return DelegationOut.model_validate(delegation_json(closed))


def _closing_route(path: str, outcome: str, doc: str) -> None:
    async def close(
        thread_id: int, body: ThreadResult, caller: CurrentCaller, db: DbDep, settings: SettingsDep
    ) -> DelegationOut:
        return await _close(
            thread_id,
            outcome,
            body.text,
            caller,
            db,
            settings.max_message_chars,
            settings.question_timeout,
        )

    close.__doc__ = doc
    close.__name__ = f"{path}_thread"
    router.post(
        f"/delegations/{{thread_id}}/{path}",
        response_model=DelegationOut,
        responses=ERRORS(*AUTHED, 409, 413),
    )(close)


_closing_route("complete", "completed", "The child ends the thread with its result (`text`).")
_closing_route("fail", "failed", "The child ends the thread as failed; `text` says why.")
_closing_route(
    "escalate",
    "escalated",
    "The child hands the thread back to the person: `text` is the reason, also asked in the"
    " person's inbox.",
)


@router.post(
    "/delegations/{thread_id}/cancel",
    response_model=DelegationOut,
    responses=ERRORS(*AUTHED, 409, 413),
)
async def cancel_thread(
    thread_id: int, body: ThreadClose, caller: CurrentCaller, db: DbDep, settings: SettingsDep
) -> DelegationOut:
    """The parent agent or the person cancels the thread."""
    return await _close(
        thread_id,
        "cancelled",
        body.text,
        caller,
        db,
        settings.max_message_chars,
        settings.question_timeout,
    )
