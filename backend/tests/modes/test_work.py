"""The work mode's decisions: what it takes from whom, and that Stop, End and deleting go to
the session's manager (no database, no Claude Code)."""

from __future__ import annotations

import pytest

from parley.auth import Caller
from parley.errors import Forbidden, InvalidInput, WrongMode
from tests.modes.conftest import Conversation, World

pytestmark = pytest.mark.unit


async def test_a_retry_is_refused_and_nothing_reaches_the_session(world: World) -> None:
    world.db.conversations[6] = Conversation("alice", "work")
    with pytest.raises(InvalidInput) as refused:
        await world.modes.turn(user_id="alice", conversation_id=6, message=None, retry=True)
    assert (refused.value.status, refused.value.code) == (409, "nothing_to_retry")
    assert world.work.calls == [] and world.runner.tasks == set()


async def test_an_agents_post_is_refused_and_nothing_is_stored(world: World) -> None:
    with pytest.raises(Forbidden) as refused:
        await world.modes.of("work").post(
            caller=Caller("alice", "planner"),
            conversation_id=6,
            text="rm -rf the tests",
            kind="message",
            reply_to=None,
            timeout_s=None,
        )
    assert refused.value.code == "agent_not_allowed"
    assert "send_to_work_session" in refused.value.message
    assert world.db.statements == [] and world.work.calls == []


@pytest.mark.parametrize(
    ("kind", "timeout_s"), [("question", None), ("status", None), ("message", 30.0)]
)
async def test_a_person_posts_only_prompts_and_answers(
    world: World, kind: str, timeout_s: float | None
) -> None:
    with pytest.raises(InvalidInput) as refused:
        await world.modes.of("work").post(
            caller=Caller("alice"),
            conversation_id=6,
            text="yes",
            kind=kind,
            reply_to=None,
            timeout_s=timeout_s,
        )
    assert refused.value.extra["details"] == [{"field": "kind"}]
    assert world.db.statements == [] and world.work.calls == []


@pytest.mark.parametrize("running", [True, False])
async def test_stop_interrupts_the_sessions_prompt(world: World, running: bool) -> None:
    if running:
        world.work.running.add(6)
    assert await world.modes.of("work").stop(user_id="alice", conversation_id=6) is running
    assert world.work.calls == [("stop", 6)]
    assert world.forwarded == [] and world.db.statements == []  # not the chat turn's path


async def test_end_ends_the_session(world: World) -> None:
    world.work.running.add(6)
    assert await world.modes.of("work").end(user_id="alice", conversation_id=6) is True
    assert world.work.calls == [("end", 6)]


async def test_deleting_a_work_conversation_ends_its_session_first(world: World) -> None:
    await world.modes.of("work").forget(user_id="alice", conversation_id=6)
    assert world.work.calls == [("end", 6)]


async def test_an_answered_permission_question_is_no_longer_pending(world: World) -> None:
    base = {"user_id": "alice", "status": "idle", "cost_usd": 0.0, "run_id": 3, "workspace": None}
    world.db.sessions = [
        {**base, "conversation_id": 6, "pending": {"question_id": 11, "closed": True}},
        {**base, "conversation_id": 8, "pending": None},
    ]
    states = await world.modes.of("work").states(user_id="alice", conversation_ids=[6, 8])
    assert states[6]["pending_question_id"] is None
    assert states[8]["pending_question_id"] is None and states[8]["run_id"] == 3


async def test_a_work_conversation_has_no_branches(world: World) -> None:
    with pytest.raises(WrongMode) as refused:
        await world.modes.of("work").turn(
            user_id="ann", conversation_id=6, text="edited", retry=False, replaces=2
        )
    assert (refused.value.status, refused.value.mode) == (409, "work")
    assert world.db.statements == []
