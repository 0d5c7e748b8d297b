"""The inbox, a run's channel and a delegation thread: written with `POST .../messages` by
people and agents, never answered by a turn, nothing to stop or end (no database)."""

from __future__ import annotations

import pytest

from parley.auth import Caller
from parley.errors import InvalidInput, WrongMode
from parley.modes.threads import ThreadMode
from tests.modes.conftest import Conversation, World

pytestmark = pytest.mark.unit

THREADS = ["inbox", "run", "delegation"]


@pytest.mark.parametrize("mode", THREADS)
async def test_a_chat_message_is_refused_naming_the_mode_and_the_way_to_write(
    world: World, mode: str
) -> None:
    world.db.conversations[4] = Conversation("alice", mode)
    with pytest.raises(WrongMode) as refused:
        await world.modes.turn(user_id="alice", conversation_id=4, message="hi", retry=False)
    error = refused.value.body()["error"]
    assert refused.value.status == 409 and error["code"] == "wrong_conversation_mode"
    assert error["mode"] == mode and error["conversation_id"] == 4
    assert "/conversations/4/messages" in error["message"]
    assert len(world.db.statements) == 1  # the mode's read, and no claim after it
    assert world.runner.tasks == set()


@pytest.mark.parametrize("mode", THREADS)
async def test_stop_has_nothing_to_end(world: World, mode: str) -> None:
    stopped = await world.modes.of(mode).stop(user_id="alice", conversation_id=4)
    assert stopped is False
    assert world.db.statements == [] and world.forwarded == [] and world.work.calls == []


@pytest.mark.parametrize("mode", THREADS)
async def test_end_is_refused_as_it_is_no_session(world: World, mode: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        await world.modes.of(mode).end(user_id="alice", conversation_id=4)
    assert refused.value.code == "not_a_work_conversation"
    assert world.work.calls == []


@pytest.mark.parametrize("mode", THREADS)
async def test_a_thread_has_no_branches(world: World, mode: str) -> None:
    with pytest.raises(WrongMode) as refused:
        await world.modes.of(mode).turn(
            user_id="alice", conversation_id=4, text="edited", retry=False, replaces=1
        )
    assert refused.value.mode == mode
    assert world.db.statements == []


async def test_deleting_one_lets_go_of_nothing(world: World) -> None:
    await world.modes.of("run").forget(user_id="alice", conversation_id=4)
    assert world.work.calls == [] and world.db.statements == []


@pytest.mark.parametrize(
    ("caller", "kind", "timeout_s", "field"),
    [
        (Caller("alice"), "question", None, "kind"),  # only agents ask
        (Caller("alice", "planner"), "delegation", None, "kind"),  # written by its tool only
        (Caller("alice", "planner"), "message", 30.0, "timeout_s"),  # questions only
        (Caller("alice", "planner"), "question", 0.0, "timeout_s"),
    ],
)
async def test_a_post_the_thread_does_not_take_is_refused_before_any_trip(
    world: World, caller: Caller, kind: str, timeout_s: float | None, field: str
) -> None:
    inbox = world.modes.of("inbox")
    assert isinstance(inbox, ThreadMode)
    with pytest.raises(InvalidInput) as refused:
        await inbox.post(
            caller=caller,
            conversation_id=4,
            text="Ship it?",
            kind=kind,
            reply_to=None,
            timeout_s=timeout_s,
        )
    assert refused.value.extra["details"] == [{"field": field}]
    assert world.db.statements == []
