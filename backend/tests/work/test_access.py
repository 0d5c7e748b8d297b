"""A work conversation streams like a chat turn, and is nobody else's business."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import eventually
from tests.realtime.sse import events
from tests.work.conftest import (
    messages,
    needs_cli,
    new_work,
    of_type,
    reply_under_way,
    send,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, say

pytestmark = [needs_cli, pytest.mark.slow]


async def test_a_prompt_streams_deltas_then_the_stored_messages_then_done(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("one two three four five six", chunks=6, delay=0.05))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        seen: list[tuple[str, Any]] = []
        async with server.client.stream(
            "POST",
            "/api/ann/chat",
            json={"conversation_id": conversation, "message": "count"},
            headers={**server.headers("ann"), "Accept": "text/event-stream"},
        ) as response:
            assert response.status_code == 200
            async for event in events(response):
                seen.append((event.event, event.json()))
                if event.event == "done":
                    break
        kinds = [kind for kind, _ in seen]
        deltas = "".join(data["text"] for kind, data in seen if kind == "delta")
        assert deltas == "one two three four five six"
        stored = [data for kind, data in seen if kind == "message"]
        assert stored[0]["content"] == "count" and stored[0]["role"] == "user"
        assert [m["meta"]["type"] for m in stored[1:]] == ["text", "result"]
        assert kinds.index("delta") < kinds.index("done") and kinds[-1] == "done"
        assert seen[-1][1]["response"] == "one two three four five six"
        assert [m["id"] for m in stored] == [
            m["id"] for m in await messages(server, "ann", conversation)
        ]


async def test_another_users_work_conversation_is_not_found_everywhere(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    fake_api.script(say("Private"))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await server.chat("ann", "hello", conversation)
        headers = server.headers("eve")
        base = f"/api/eve/conversations/{conversation}"
        for method, path, body in [
            ("POST", "/api/eve/chat", {"conversation_id": conversation, "message": "hi"}),
            ("POST", f"{base}/messages", {"text": "hi"}),
            ("POST", f"{base}/stop", None),
            ("POST", f"{base}/work/end", None),
            ("GET", f"{base}/work", None),
            ("GET", f"{base}/messages", None),
        ]:
            response = await server.client.request(method, path, json=body, headers=headers)
            assert response.status_code == 404, (path, response.text)
        assert len(await messages(server, "ann", conversation)) == 3  # nothing added
        state = (
            await server.client.get(
                f"/api/ann/conversations/{conversation}/work", headers=server.headers("ann")
            )
        ).json()
        assert state["status"] == "idle"  # still alive: eve's End did nothing


async def test_a_watcher_joining_mid_output_gets_the_text_so_far_then_the_rest(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    words = [f"w{i} " for i in range(40)]
    fake_api.script(say("".join(words), chunks=40, delay=0.1))
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        await send(server, "ann", conversation, "talk slowly")
        await eventually(lambda: _status_is(server, conversation, "working"), within=20)
        await reply_under_way(server, conversation, more_than=len(words[0]))
        text = ""
        async with server.client.stream(
            "GET",
            f"/api/ann/conversations/{conversation}/events",
            headers=server.headers("ann"),
        ) as response:
            async for event in events(response):
                if event.event == "delta":
                    if not text:
                        assert len(event.json()["text"]) > len(words[0])  # joined mid-reply
                    text += event.json()["text"]
                elif event.event == "message" and of_type(event.json()) == "text":
                    assert event.json()["content"] == text == "".join(words)
                    break


async def _status_is(server: Any, conversation: int, status: str) -> bool:
    return (await work_state(server, "ann", conversation))["status"] == status
