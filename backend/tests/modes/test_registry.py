"""The registry: one class per mode, the one read that finds a conversation's mode, the
checks every `POST /chat` gets before it, and whose state is read (no database)."""

from __future__ import annotations

from typing import get_args

import pytest

from parley.errors import InvalidInput, NotFound, ParleyError, TooLarge
from parley.models import ConversationMode
from parley.modes import MODES, Modes
from parley.modes.chat import ChatMode
from parley.schemas import ConversationCreate
from tests.modes.conftest import Conversation, World

pytestmark = pytest.mark.unit


def test_each_mode_is_answered_by_its_own_class(world: World) -> None:
    answered = {m: world.modes.of(m) for m in ConversationMode}
    assert all(found.mode is m for m, found in answered.items())
    assert len({type(found) for found in answered.values()}) == len(ConversationMode)
    assert world.modes.of("work") is world.modes.of(ConversationMode.work)


def test_a_registry_without_a_class_for_some_mode_is_refused(world: World) -> None:
    with pytest.raises(TypeError, match="delegation"):
        Modes(world.modes.parts, classes=[c for c in MODES if c.mode != "delegation"])


def test_a_registry_with_two_classes_for_one_mode_is_refused(world: World) -> None:
    class AnotherChat(ChatMode):
        pass

    with pytest.raises(TypeError, match="two classes for mode chat"):
        Modes(world.modes.parts, classes=[*MODES, AnotherChat])


def test_the_modes_a_person_creates_are_the_ones_the_api_offers(world: World) -> None:
    offered = set(get_args(ConversationCreate.model_fields["mode"].annotation))
    assert world.modes.person_creates() == offered == {"chat", "work"}


async def test_a_conversation_still_to_be_made_is_a_chat_without_reading_anything(
    world: World,
) -> None:
    found = await world.modes.for_conversation(user_id="alice", conversation_id=None)
    assert isinstance(found, ChatMode)
    assert world.db.statements == []


@pytest.mark.parametrize("mode", list(ConversationMode))
async def test_a_conversations_mode_is_found_with_one_read(world: World, mode: str) -> None:
    world.db.conversations[3] = Conversation("alice", mode)
    found = await world.modes.for_conversation(user_id="alice", conversation_id=3)
    assert found is world.modes.of(mode)
    assert len(world.db.statements) == 1


@pytest.mark.parametrize("conversation_id", [0, -1, 2**63])
async def test_an_id_no_row_can_have_is_not_found_without_asking(
    world: World, conversation_id: int
) -> None:
    with pytest.raises(NotFound):
        await world.modes.for_conversation(user_id="alice", conversation_id=conversation_id)
    assert world.db.statements == []


async def test_another_persons_conversation_is_not_found(world: World) -> None:
    world.db.conversations[7] = Conversation("bob", "work")
    with pytest.raises(NotFound) as refused:
        await world.modes.for_conversation(user_id="alice", conversation_id=7)
    assert refused.value.status == 404


@pytest.mark.parametrize("mode", ["chat", "work"])
async def test_a_turn_reads_its_conversations_mode_once_when_its_mode_checks_the_rest(
    world: World, mode: str
) -> None:
    """The hot path: the chat and work turns check ownership in their own first statement,
    so the mode read is not repeated on every turn."""
    world.db.conversations[3] = Conversation("alice", mode)
    for _ in range(3):
        found = await world.modes.turn_mode(user_id="alice", conversation_id=3)
        assert found is world.modes.of(mode)
    assert len(world.db.statements) == 1


@pytest.mark.parametrize("mode", ["inbox", "run", "delegation"])
async def test_a_mode_whose_turn_reads_nothing_is_read_every_time(world: World, mode: str) -> None:
    """Their turn refuses without a statement: a deleted conversation must still be a 404
    there, so their mode is never remembered."""
    world.db.conversations[3] = Conversation("alice", mode)
    for _ in range(2):
        await world.modes.turn_mode(user_id="alice", conversation_id=3)
    assert len(world.db.statements) == 2
    del world.db.conversations[3]
    with pytest.raises(NotFound):
        await world.modes.turn_mode(user_id="alice", conversation_id=3)


async def test_a_remembered_mode_is_never_another_persons(world: World) -> None:
    world.db.conversations[3] = Conversation("alice", "chat")
    await world.modes.turn_mode(user_id="alice", conversation_id=3)
    with pytest.raises(NotFound):
        await world.modes.turn_mode(user_id="bob", conversation_id=3)


@pytest.mark.parametrize(
    ("conversation_id", "message", "retry", "refusal", "field"),
    [
        (None, None, True, InvalidInput, "retry"),  # a retry names its conversation
        (5, "again", True, InvalidInput, "retry"),  # and carries no message
        (5, None, False, InvalidInput, "message"),
        (5, " \n\t ", False, InvalidInput, "message"),
        (5, "x" * 51, False, TooLarge, None),  # max_message_chars is 50 here
    ],
)
async def test_a_bad_chat_request_is_refused_before_any_database_trip(
    world: World,
    conversation_id: int | None,
    message: str | None,
    retry: bool,
    refusal: type[ParleyError],
    field: str | None,
) -> None:
    world.db.conversations[5] = Conversation("alice", "work")
    with pytest.raises(refusal) as refused:
        await world.modes.turn(
            user_id="alice", conversation_id=conversation_id, message=message, retry=retry
        )
    if field is not None:
        assert refused.value.extra["details"] == [{"field": field}]
    assert world.db.statements == []
    assert world.work.calls == []


async def test_conversations_whose_modes_show_no_state_cost_no_read(world: World) -> None:
    found = [(1, "chat"), (2, ConversationMode.inbox), (3, "run"), (4, "delegation")]
    assert await world.modes.states(user_id="alice", found=found) == {}
    assert world.db.statements == []


async def test_work_states_are_read_once_for_the_work_conversations_only(world: World) -> None:
    world.db.sessions = [
        {
            "user_id": "alice",
            "conversation_id": 2,
            "status": "working",
            "cost_usd": 0.25,
            "run_id": 9,
            "workspace": "site",
            "pending": {"question_id": 40},
        }
    ]
    found = [(1, "chat"), (2, "work"), (3, "inbox"), (4, "work")]
    states = await world.modes.states(user_id="alice", found=found)
    assert states == {
        2: {
            "status": "working",
            "cost_usd": 0.25,
            "run_id": 9,
            "workspace": "site",
            "pending_question_id": 40,
        },
        4: {"status": "idle", "cost_usd": 0.0, "run_id": None},  # never started
    }
    [(_sql, args)] = world.db.statements
    assert args == ("alice", [2, 4])
