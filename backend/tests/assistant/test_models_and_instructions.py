"""The model picker and a person's own instructions, end to end: a real server, real
PostgreSQL, the real agent runner against the fake OpenAI-compatible server (tests/fakes),
whose `GET /v1/models` lists what it serves and whose requests say what the model was sent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tests.conftest import Server, free_port
from tests.fakes.openai_server import FakeOpenAI, running, say

LISTED = ["fake-model", "fake-large", "fake-small", "offline"]


@asynccontextmanager
async def with_fake(make_server: Any, **overrides: Any) -> AsyncIterator[tuple[Server, FakeOpenAI]]:
    async with (
        running(FakeOpenAI()) as fake,
        make_server(
            OPENAI_BASE_URL=fake.base_url, PARLEY_MODEL="fake-model", **overrides
        ) as server,
    ):
        yield server, fake


async def _models(server: Server, user: str = "alice") -> dict[str, Any]:
    response = await server.client.get(f"/api/{user}/models", headers=server.headers(user))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _choose(server: Server, conversation_id: int, model: Any, user: str = "alice") -> Any:
    return await server.client.put(
        f"/api/{user}/conversations/{conversation_id}/model",
        json={"model": model},
        headers=server.headers(user),
    )


async def _conversation(server: Server, conversation_id: int, user: str = "alice") -> Any:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _new_chat(server: Server, user: str = "alice") -> int:
    response = await server.client.post(
        f"/api/{user}/conversations", json={}, headers=server.headers(user)
    )
    assert response.status_code == 201, response.text
    conversation_id: int = response.json()["id"]
    return conversation_id


async def _replies(server: Server, conversation_id: int, user: str = "alice") -> list[Any]:
    response = await server.client.get(
        f"/api/{user}/conversations/{conversation_id}/messages", headers=server.headers(user)
    )
    assert response.status_code == 200, response.text
    return [m for m in response.json() if m["role"] == "assistant"]


def _system(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "system")


# -- the list --------------------------------------------------------------------------


async def test_the_providers_models_are_listed_with_the_offline_one_and_kept_briefly(
    make_server,
):
    async with with_fake(make_server) as (server, fake):
        fake.models = ["fake-small", "fake-model", "fake-large", "offline"]
        # A burst of first requests makes one call to the provider.
        bodies = await asyncio.gather(*(_models(server) for _ in range(8)))
        again = await _models(server)
    assert all(b == bodies[0] for b in bodies)
    assert bodies[0] == {
        "models": LISTED,
        "default": "fake-model",
        "provider_reachable": True,
        "notice": None,
    }
    assert again == bodies[0]
    assert fake.models_calls == 1


async def test_the_list_is_asked_for_again_once_it_is_old(make_server):
    async with with_fake(make_server, PARLEY_MODELS_CACHE_SECONDS=0) as (server, fake):
        first = await _models(server)
        fake.models = ["fake-model", "fake-new"]
        second = await _models(server)
    assert "fake-new" not in first["models"]
    assert second["models"] == ["fake-model", "fake-new", "offline"]
    assert fake.models_calls == 2


async def test_the_key_goes_to_the_provider_only_as_its_bearer(make_server):
    async with with_fake(make_server, OPENAI_API_KEY="sk-test-key") as (server, fake):
        await _models(server)
    assert fake.models_auth == ["Bearer sk-test-key"]


async def test_a_provider_that_fails_lists_what_is_known_and_says_so(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.models_status = 500
        body = await _models(server)
    assert body["models"] == ["fake-model", "offline"]
    assert body["provider_reachable"] is False
    assert "could not be reached" in body["notice"]


async def test_a_provider_that_is_not_there_lists_what_is_known(make_server):
    closed = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    async with make_server(OPENAI_BASE_URL=closed, PARLEY_MODEL="fake-model") as server:
        body = await _models(server)
    assert body["models"] == ["fake-model", "offline"]
    assert body["provider_reachable"] is False


async def test_a_provider_that_never_answers_is_given_up_on_after_the_timeout(make_server):
    async with with_fake(make_server, PARLEY_MODELS_TIMEOUT=0.5) as (server, fake):
        fake.models_hang = True
        body = await _models(server)
    assert body["models"] == ["fake-model", "offline"]
    assert body["provider_reachable"] is False


async def test_a_provider_answering_something_else_than_a_list_lists_what_is_known(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.models = ["fake-large", "x" * 500, "bad\x07name"]  # too long, unprintable
        body = await _models(server)
    # What is a list is read; ids no one could pick are left out.
    assert body["models"] == ["fake-model", "fake-large", "offline"]


async def test_without_a_provider_only_the_offline_model_is_offered(server):
    body = await _models(server)
    assert body == {
        "models": ["offline"],
        "default": "offline",
        "provider_reachable": None,
        "notice": None,
    }


# -- choosing ----------------------------------------------------------------------------


async def test_the_chosen_model_answers_and_each_reply_says_which_did(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("From the default."))
        first = await server.chat("alice", "hello")
        assert first.status_code == 200, first.text
        conversation_id = first.json()["conversation_id"]
        chosen = await _choose(server, conversation_id, "fake-large")
        assert chosen.status_code == 200, chosen.text
        assert chosen.json()["model"] == "fake-large"
        fake.enqueue(say("From the large one."))
        second = await server.chat("alice", "again", conversation_id)
        assert second.status_code == 200, second.text
        # The offline model answers without the provider.
        calls = len(fake.requests)
        assert (await _choose(server, conversation_id, "offline")).status_code == 200
        third = await server.chat("alice", "list my tasks", conversation_id)
        assert third.status_code == 200, third.text
        replies = await _replies(server, conversation_id)
        shown = await _conversation(server, conversation_id)
    assert [r["model"] for r in fake.requests] == ["fake-model", "fake-large"]
    assert len(fake.requests) == calls
    assert [(r["content"], r["meta"]["model"]) for r in replies][:2] == [
        ("From the default.", "fake-model"),
        ("From the large one.", "fake-large"),
    ]
    assert replies[2]["meta"]["model"] == "offline"
    assert shown["model"] == "offline"


async def test_null_goes_back_to_the_configured_model(make_server):
    async with with_fake(make_server) as (server, fake):
        conversation_id = await _new_chat(server)
        assert (await _choose(server, conversation_id, "fake-small")).status_code == 200
        back = await _choose(server, conversation_id, None)
        fake.enqueue(say("Default again."))
        answered = await server.chat("alice", "hi", conversation_id)
    assert back.status_code == 200 and back.json()["model"] is None
    assert answered.status_code == 200, answered.text
    assert fake.requests[-1]["model"] == "fake-model"


async def test_a_model_not_offered_is_refused_and_nothing_changes(make_server):
    async with with_fake(make_server, PARLEY_MODELS_CACHE_SECONDS=0) as (server, fake):
        conversation_id = await _new_chat(server)
        assert (await _choose(server, conversation_id, "fake-small")).status_code == 200
        refused = {
            name: await _choose(server, conversation_id, name)
            for name in ["gpt-5", "FAKE-LARGE", " fake-large", "fake-large ", "fake%2Dlarge", ""]
        }
        odd = [
            await _choose(server, conversation_id, value)
            for value in [5, ["fake-large"], {"id": "fake-large"}, "fake-large\x00", "a" * 300]
        ]
        missing_field = await server.client.put(
            f"/api/alice/conversations/{conversation_id}/model",
            json={},
            headers=server.headers("alice"),
        )
        # The provider down: its models are not offered now, the known ones still are.
        fake.models_status = 503
        while_down = await _choose(server, conversation_id, "fake-large")
        shown = await _conversation(server, conversation_id)
        offline = await _choose(server, conversation_id, "offline")
    for name, response in refused.items():
        assert response.status_code == 422, (name, response.text)
        assert response.json()["error"]["code"] == "model_not_offered"
        assert "fake-large" in response.json()["error"]["offered"]
    assert all(r.status_code == 422 for r in odd), [r.text for r in odd]
    assert missing_field.status_code == 422
    assert while_down.status_code == 422
    assert shown["model"] == "fake-small"
    assert offline.status_code == 200


async def test_an_edit_and_a_regenerated_reply_come_from_the_chosen_model(make_server):
    async with with_fake(make_server) as (server, fake):
        fake.enqueue(say("First."))
        first = await server.chat("alice", "hello")
        conversation_id = first.json()["conversation_id"]
        assert (await _choose(server, conversation_id, "fake-small")).status_code == 200
        [question] = [
            m
            for m in (
                await server.client.get(
                    f"/api/alice/conversations/{conversation_id}/messages",
                    headers=server.headers("alice"),
                )
            ).json()
            if m["role"] == "user"
        ]
        fake.enqueue(say("Edited."))
        edited = await server.client.post(
            "/api/alice/chat",
            json={
                "conversation_id": conversation_id,
                "message": "hello, edited",
                "replaces": question["id"],
            },
            headers=server.headers("alice"),
        )
        assert edited.status_code == 200, edited.text
        assert fake.requests[-1]["model"] == "fake-small"
        shown = await server.client.get(
            f"/api/alice/conversations/{conversation_id}/messages", headers=server.headers("alice")
        )
        reply = shown.json()[-1]
        assert reply["role"] == "assistant" and reply["content"] == "Edited."
        fake.enqueue(say("Again."))
        again = await server.client.post(
            "/api/alice/chat",
            json={"conversation_id": conversation_id, "replaces": reply["id"]},
            headers=server.headers("alice"),
        )
    assert again.status_code == 200, again.text
    assert fake.requests[-1]["model"] == "fake-small"


async def test_only_the_owner_chooses_a_conversations_model(make_server):
    async with with_fake(make_server) as (server, fake):
        conversation_id = await _new_chat(server, "alice")
        as_bob = await _choose(server, conversation_id, "fake-large", user="bob")
        forged = await server.client.put(
            f"/api/alice/conversations/{conversation_id}/model",
            json={"model": "fake-large"},
            headers=server.headers("bob"),
        )
        nobody = await server.client.put(
            f"/api/alice/conversations/{conversation_id}/model", json={"model": "fake-large"}
        )
        unknown = await _choose(server, 2**63, "fake-large")
        shown = await _conversation(server, conversation_id)
        fake.enqueue(say("Still the default."))
        answered = await server.chat("alice", "hi", conversation_id)
    assert as_bob.status_code == 404, as_bob.text
    assert forged.status_code == 403, forged.text
    assert nobody.status_code == 401, nobody.text
    assert unknown.status_code == 404, unknown.text
    assert shown["model"] is None
    assert answered.status_code == 200 and fake.requests[-1]["model"] == "fake-model"


async def test_a_work_conversation_has_no_model_to_choose(make_server):
    async with with_fake(make_server) as (server, _fake):
        response = await server.client.post(
            "/api/alice/conversations", json={"mode": "work"}, headers=server.headers("alice")
        )
        assert response.status_code == 201, response.text
        chosen = await _choose(server, response.json()["id"], "fake-large")
    assert chosen.status_code == 409, chosen.text


# -- instructions ------------------------------------------------------------------------


async def _instructions(server: Server, text: Any, user: str = "alice") -> Any:
    return await server.client.put(
        f"/api/{user}/instructions", json={"text": text}, headers=server.headers(user)
    )


async def test_instructions_reach_the_model_on_every_turn_of_their_owner_only(make_server):
    async with with_fake(make_server) as (server, fake):
        saved = await _instructions(server, "  Always answer in French.\nSign as Ana.  ")
        assert saved.status_code == 200, saved.text
        fake.enqueue(say("Bonjour."), say("Encore."), say("Hello Bob."))
        first = await server.chat("alice", "hello")
        second = await server.chat("alice", "again", first.json()["conversation_id"])
        bobs = await server.chat("bob", "hello")
        read = await server.client.get("/api/alice/instructions", headers=server.headers("alice"))
        bob_reads = await server.client.get(
            "/api/alice/instructions", headers=server.headers("bob")
        )
        own = await server.client.get("/api/bob/instructions", headers=server.headers("bob"))
    assert second.status_code == 200 and bobs.status_code == 200
    assert saved.json()["text"] == "Always answer in French.\nSign as Ana."
    assert read.json() == {"text": "Always answer in French.\nSign as Ana.", "max_chars": 4000}
    for request in fake.requests[:2]:
        assert "Always answer in French.\nSign as Ana." in _system(request)
    assert "French" not in _system(fake.requests[2])
    assert "Parley" in _system(fake.requests[2])  # bob's turn has the assistant's own
    assert bob_reads.status_code == 403
    assert own.json()["text"] == ""


async def test_instructions_over_the_cap_are_refused_and_the_saved_ones_stay(make_server):
    async with with_fake(make_server) as (server, fake):
        assert (await _instructions(server, "Be brief.")).status_code == 200
        over = await _instructions(server, "x" * 4001)
        nul = await _instructions(server, "bad\x00text")
        not_text = await _instructions(server, ["Be brief."])
        at_cap = await _instructions(server, "y" * 4000)
        read_at_cap = await server.client.get(
            "/api/alice/instructions", headers=server.headers("alice")
        )
        assert (await _instructions(server, "Be brief.")).status_code == 200
        again_over = await _instructions(server, "z" * 10_000)
        fake.enqueue(say("Ok."))
        await server.chat("alice", "hi")
    assert over.status_code == 422, over.text
    assert "at most 4000" in over.json()["error"]["message"]
    assert nul.status_code == 422 and not_text.status_code == 422
    assert at_cap.status_code == 200 and read_at_cap.json()["text"] == "y" * 4000
    assert again_over.status_code == 422
    assert "Be brief." in _system(fake.requests[-1])


async def test_cleared_instructions_are_no_longer_given(make_server):
    async with with_fake(make_server) as (server, fake):
        assert (await _instructions(server, "Speak like a pirate.")).status_code == 200
        cleared = await _instructions(server, "   ")
        fake.enqueue(say("Hello."))
        await server.chat("alice", "hi")
    assert cleared.status_code == 200 and cleared.json()["text"] == ""
    assert "pirate" not in _system(fake.requests[-1])
    assert "keep the following in mind" not in _system(fake.requests[-1])
