"""Branches in place on a Citus cluster, for people on both workers: an edit, a regenerated
reply and a switch, through either instance, each run whole on the person's node."""

from __future__ import annotations

import pytest

from tests.cluster.helpers import Placement
from tests.conftest import Server

pytestmark = pytest.mark.cluster


async def _shown(server: Server, user: str, conversation_id: int) -> list[tuple[int, str]]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/messages", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    return [(m["id"], m["content"]) for m in response.json()]


async def test_edit_regenerate_and_switch_through_either_instance(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("branches"):
        first = await one.chat(user, "list my tasks")
        assert first.status_code == 200, first.text
        conversation_id = first.json()["conversation_id"]
        [(question, _), (reply, _)] = await _shown(two, user, conversation_id)

        edited = await two.client.post(
            f"/api/{user}/chat",
            json={"conversation_id": conversation_id, "message": "help", "replaces": question},
            headers=two.headers(user),
        )
        assert edited.status_code == 200, edited.text
        again = await one.client.post(
            f"/api/{user}/chat",
            json={
                "conversation_id": conversation_id,
                "replaces": (await _shown(one, user, conversation_id))[1][0],
            },
            headers=one.headers(user),
        )
        assert again.status_code == 200, again.text
        shown = await _shown(one, user, conversation_id)
        assert len(shown) == 2 and shown[0][1] == "help"
        forks = await two.client.get(
            f"/api/{user}/conversations/{conversation_id}/branches", headers=two.headers(user)
        )
        assert [len(b["siblings"]) for b in forks.json()["branches"]] == [2, 2]

        switched = await two.client.post(
            f"/api/{user}/conversations/{conversation_id}/branch",
            json={"message_id": question},
            headers=two.headers(user),
        )
        assert switched.status_code == 200, switched.text
        assert [i for i, _ in await _shown(one, user, conversation_id)] == [question, reply]
