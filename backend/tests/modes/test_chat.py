"""The chat mode's decisions: posts go through `POST /chat`, Stop ends the turn wherever it
runs, and a chat has no session to end or state to show (no database)."""

from __future__ import annotations

import asyncio

import pytest

from parley.auth import Caller
from parley.errors import InvalidInput, NotFound, ParleyError
from tests.modes.conftest import Conversation, World

pytestmark = pytest.mark.unit


class Done:
    def body(self) -> dict[str, str]:
        return {"response": "stopped"}


@pytest.mark.parametrize("caller", [Caller("alice"), Caller("alice", "planner")])
async def test_nothing_is_posted_into_a_chat(world: World, caller: Caller) -> None:
    with pytest.raises(ParleyError) as refused:
        await world.modes.of("chat").post(
            caller=caller,
            conversation_id=2,
            text="hello",
            kind="message",
            reply_to=None,
            timeout_s=None,
        )
    assert (refused.value.status, refused.value.code) == (409, "not_writable")
    assert "POST /chat" in refused.value.message
    assert world.db.statements == []


async def test_stop_ends_the_turn_running_on_this_instance(world: World) -> None:
    world.db.conversations[2] = Conversation("alice", "chat", claimed=True)
    ended = asyncio.Event()

    async def turn(_emit: object, stop: asyncio.Event) -> Done:
        await stop.wait()
        ended.set()
        return Done()

    running = asyncio.ensure_future(world.runner.run(2, turn))
    await asyncio.sleep(0)  # the runner has registered the turn
    assert await world.modes.of("chat").stop(user_id="alice", conversation_id=2) is True
    assert (await running).body() == {"response": "stopped"}
    assert ended.is_set() and world.forwarded == []


async def test_stop_of_a_turn_claimed_elsewhere_is_forwarded(world: World) -> None:
    world.db.conversations[2] = Conversation("alice", "chat", claimed=True)
    assert await world.modes.of("chat").stop(user_id="alice", conversation_id=2) is True
    assert world.forwarded == [2]


async def test_stop_with_no_turn_running_says_so(world: World) -> None:
    world.db.conversations[2] = Conversation("alice", "chat", claimed=False)
    assert await world.modes.of("chat").stop(user_id="alice", conversation_id=2) is False
    assert world.forwarded == []


async def test_stop_in_another_persons_chat_is_not_found(world: World) -> None:
    world.db.conversations[2] = Conversation("bob", "chat", claimed=True)
    with pytest.raises(NotFound):
        await world.modes.of("chat").stop(user_id="alice", conversation_id=2)
    assert world.forwarded == []


async def test_a_chat_has_no_session_to_end(world: World) -> None:
    with pytest.raises(InvalidInput) as refused:
        await world.modes.of("chat").end(user_id="alice", conversation_id=2)
    assert refused.value.code == "not_a_work_conversation"
    await world.modes.of("chat").forget(user_id="alice", conversation_id=2)
    assert world.work.calls == []


async def test_a_chat_shows_no_state_and_reads_none(world: World) -> None:
    chat = world.modes.of("chat")
    assert await chat.states(user_id="alice", conversation_ids=[1, 2]) == {}
    assert world.db.statements == []
