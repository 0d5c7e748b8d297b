"""A person's approval rules (specs/approvals.md): listed, added, changed, removed, and made
from a permission question ("Always allow this"). The person only: an agent's key is 403."""

from __future__ import annotations

from fastapi import APIRouter, Response

from parley.api.answer_channel import AnswerChannelDep
from parley.api.deps import CurrentCaller, DbDep, PersonUser, SettingsDep, WorkDep
from parley.api.errors import AUTHED, ERRORS
from parley.approvals import always, rules
from parley.approvals.schemas import AlwaysOut, RuleIn, RuleOut, RulePatch
from parley.runs.schemas import PostedOut
from parley.schemas import message_json

router = APIRouter(prefix="/api/{user_id}/approval-rules", tags=["approval rules"])


@router.get("", response_model=list[RuleOut], responses=ERRORS(*AUTHED))
async def list_rules(user_id: PersonUser, db: DbDep) -> list[RuleOut]:
    """The person's rules, oldest first."""
    return [RuleOut.model_validate(r) for r in await rules.list_rules(db, user_id=user_id)]


@router.post("", response_model=RuleOut, status_code=201, responses=ERRORS(*AUTHED, 409))
async def add_rule(body: RuleIn, user_id: PersonUser, db: DbDep) -> RuleOut:
    """A new rule. A pattern Claude Code would not read is 422 (`bad_pattern`, saying what is
    wrong); the same pattern again in the same scope is 409 (`rule_exists`); past 500 rules
    is 422 (`too_many_rules`). Nothing is stored then."""
    made = await rules.add(db, user_id=user_id, **body.model_dump())
    return RuleOut.model_validate(made)


@router.patch("/{rule_id}", response_model=RuleOut, responses=ERRORS(*AUTHED, 409))
async def change_rule(rule_id: int, body: RulePatch, user_id: PersonUser, db: DbDep) -> RuleOut:
    """Change the fields given (`scope: "all"` alone clears `scope_value`). Another
    person's rule, or none, is 404."""
    changes = body.model_dump(exclude_none=True)
    changed = await rules.change(db, user_id=user_id, rule_id=rule_id, changes=changes)
    return RuleOut.model_validate(changed)


@router.delete("/{rule_id}", status_code=204, responses=ERRORS(*AUTHED))
async def remove_rule(rule_id: int, user_id: PersonUser, db: DbDep) -> Response:
    await rules.remove(db, user_id=user_id, rule_id=rule_id)
    return Response(status_code=204)


@router.post(
    "/from-question/{question_id}",
    response_model=AlwaysOut,
    status_code=201,
    responses=ERRORS(*AUTHED, 409),
)
async def always_allow(
    question_id: int,
    user_id: PersonUser,
    caller: CurrentCaller,
    db: DbDep,
    settings: SettingsDep,
    work: WorkDep,
    channel: AnswerChannelDep,
) -> AlwaysOut:
    """ "Always allow this": answer the permission question `allow` and make the narrowest
    rule for its call (`Bash(<that command>)`, `Edit(//<that file>)`, the MCP tool...), so
    the same call is allowed without a question from now on. A question already answered
    or closed is 409 and no rule is made; a call no rule can name is 422. A notification's
    "Always allow" button posts here with its device (`X-Parley-Device`), the web UI with
    `X-Parley-Via: email_link` for a question an emailed link opened: the audit trail
    records the answer as through them, as for `.../answer`."""
    del user_id  # the person's own path, checked (PersonUser); the caller carries it
    made = await always.always_allow(
        db,
        caller=caller,
        question_id=question_id,
        max_chars=settings.max_message_chars,
        sessions=work,
        device=channel.device,
        via=channel.via,
        session=channel.session,
    )
    answer = PostedOut(**message_json(made.answered.answer), answered=question_id)
    return AlwaysOut(rule=RuleOut.model_validate(made.rule), answer=answer)
