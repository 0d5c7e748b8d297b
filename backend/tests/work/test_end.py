"""Ending a session: End answers with the session ended, from either instance; the process
tree goes right after; a prompt sent after End (or racing it) starts the next session, and
one that End cut short is told so. Nothing the person says around End is left unanswered."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest

from parley.db import Database
from parley.work import ownership, store
from parley.work.session import STARTS_AFRESH, session_tag
from tests.conftest import Server, eventually
from tests.work.conftest import (
    RESULT_WITHIN,
    messages,
    needs_cli,
    new_work,
    of_type,
    reply_under_way,
    send,
    tagged_alive,
    unanswered,
    work_state,
)
from tests.work.fake_anthropic import FakeAnthropic, echo

pytestmark = [needs_cli, pytest.mark.slow]

PROMPT = r"p\d\d"  # each prompt names itself (p01, p02...); the fake model echoes the name


async def end(server: Server, conversation: int, user: str = "ann") -> httpx.Response:
    return await server.client.post(
        f"/api/{user}/conversations/{conversation}/work/end", headers=server.headers(user)
    )


async def runs(db: Database, conversation: int) -> list[dict[str, Any]]:
    async with db.connection() as conn:
        rows = await conn.fetch(
            "SELECT id, status, pid, instance FROM agent_runs WHERE conversation_id = $1"
            " ORDER BY id",
            conversation,
        )
    return [dict(row) for row in rows]


async def tree_gone(run: dict[str, Any]) -> None:
    """Until no process carries the run's session tag: claude and whatever it started."""
    tag = session_tag(run["instance"], run["id"])

    async def gone() -> bool:
        return not await asyncio.to_thread(tagged_alive, {tag})

    await eventually(gone, within=30)


async def all_answered(server: Server, conversation: int) -> list[dict[str, Any]]:
    """Until every prompt of the conversation has its closing message; its messages."""
    found: list[dict[str, Any]] = []

    async def answered() -> bool:
        found[:] = await messages(server, "ann", conversation)
        return not unanswered(found)

    await eventually(answered, within=RESULT_WITHIN)
    return found


async def test_a_prompt_after_end_starts_a_new_session_that_remembers(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        first = await server.chat("ann", "p01 the secret is kiwi", conversation)
        assert first.json()["response"] == "echo p01", first.text
        (old,) = await runs(db, conversation)
        ended = await end(server, conversation)
        assert ended.json() == {"ended": True}
        # Recorded before End answered: what every instance shows at once.
        assert (await work_state(server, "ann", conversation))["status"] == "ended"
        assert [r["status"] for r in await runs(db, conversation)] == ["completed"]
        again = await server.chat("ann", "p02 what was the secret?", conversation)
        assert again.status_code == 200, again.text
        assert again.json()["response"] == "echo p02"
        assert "the secret is kiwi" in fake_api.texts_sent(-1)  # resumed, context and all
        newer = (await runs(db, conversation))[-1]
        assert newer["id"] != old["id"] and newer["status"] == "running"
        await tree_gone(old)
        assert unanswered(await messages(server, "ann", conversation)) == []


async def test_end_during_a_reply_tells_its_prompt_why(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT, slow="slowly")
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        chat = asyncio.create_task(server.chat("ann", "p01 answer slowly", conversation))
        await reply_under_way(server, conversation)
        ended = await end(server, conversation)
        assert ended.json() == {"ended": True}
        cut = await chat
        assert cut.status_code == 502, cut.text
        error = cut.json()["error"]
        assert error["code"] == "work_failed" and "ended" in error["message"].lower()
        found = await messages(server, "ann", conversation)
        (prompt,) = [m for m in found if m["role"] == "user"]
        (told,) = [m for m in found if of_type(m) == "error"]
        assert told["meta"]["prompts"] == [prompt["id"]] and told["id"] > prompt["id"]
        assert told["content"] == error["message"]
        assert (await work_state(server, "ann", conversation))["status"] == "ended"
        await tree_gone((await runs(db, conversation))[0])


async def test_prompts_racing_end_are_each_answered_or_told_why(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        assert (await server.chat("ann", "p00 hello", conversation)).status_code == 200
        (first,) = await runs(db, conversation)
        ended, *sent = await asyncio.gather(
            end(server, conversation),
            *(send(server, "ann", conversation, f"p{i:02} go") for i in range(1, 5)),
        )
        assert ended.json() == {"ended": True}
        assert [s.status_code for s in sent] == [201] * 4, [s.text for s in sent]
        found = await all_answered(server, conversation)
        texts = {m["content"] for m in found if of_type(m) == "text"}
        for prompt in sent:
            name = prompt.json()["content"][:3]
            closing = [
                m for m in found if prompt.json()["id"] in (m["meta"] or {}).get("prompts", [])
            ]
            assert len(closing) == 1, closing
            # Answered by the next session, or cut by End and told so.
            if of_type(closing[0]) == "result":
                assert f"echo {name}" in texts
            else:
                assert closing[0]["content"].startswith("Ended before answering")
        await tree_gone(first)


async def test_end_through_the_other_instance_is_recorded_there_and_the_owner_ends_it(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "p01 the code word is fig", conversation)).status_code == 200
        (old,) = await runs(db, conversation)
        ended = await end(b, conversation)
        assert ended.json() == {"ended": True}
        assert (await work_state(b, "ann", conversation))["status"] == "ended"
        assert [r["status"] for r in await runs(db, conversation)] == ["completed"]
        await tree_gone(old)  # A, told through the database, killed it
        reply = await b.chat("ann", "p02 and the code word?", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "echo p02"
        assert "the code word is fig" in fake_api.texts_sent(-1)
        assert unanswered(await messages(a, "ann", conversation)) == []


async def test_an_end_whose_note_never_came_still_ends_the_owners_process(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.default = echo(PROMPT)
    async with work_server() as a:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "p01 hello", conversation)).status_code == 200
        (old,) = await runs(db, conversation)
        # Another instance recorded the End, and its note to A was lost.
        ended = await store.end_session(db, user_id="ann", conversation_id=conversation)
        assert ended is not None and ended.was_live and ended.owner is not None
        await tree_gone(old)

        async def let_go() -> bool:
            return await ownership.holder(db, user_id="ann", conversation_id=conversation) is None

        await eventually(let_go, within=30)
        reply = await a.chat("ann", "p02 still there?", conversation)
        assert reply.status_code == 200 and reply.json()["response"] == "echo p02", reply.text
        assert [r["status"] for r in await runs(db, conversation)] == ["completed", "running"]


async def test_a_session_whose_transcript_is_gone_starts_afresh_instead_of_failing(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    """A session ended before Claude Code saved its first turn leaves an id it cannot resume;
    the conversation must not fail every message after that."""
    fake_api.default = echo(PROMPT)
    async with work_server() as server:
        conversation = await new_work(server, "ann")
        assert (await server.chat("ann", "p01 hello", conversation)).status_code == 200
        assert (await end(server, conversation)).json() == {"ended": True}
        await store.update_session(db, "ann", conversation, session_id=str(uuid.uuid4()))
        reply = await server.chat("ann", "p02 are you there?", conversation)
        assert reply.status_code == 200, reply.text
        assert reply.json()["response"] == "echo p02"
        found = await messages(server, "ann", conversation)
        assert STARTS_AFRESH in [m["content"] for m in found if of_type(m) == "status"]
        assert "p01 hello" not in fake_api.texts_sent(-1)  # afresh: nothing to resume
        row = await store.get_session(db, user_id="ann", conversation_id=conversation)
        assert row is not None and row.session_id is not None  # the new session's own id
        assert unanswered(found) == []


async def test_a_prompt_whose_holder_lets_go_without_it_is_taken_over(
    work_server: Any, fake_api: FakeAnthropic, db: Database
) -> None:
    """The note to the holder came too late (its session was gone): the instance the prompt
    was sent to starts the session itself once the holder lets go, and answers it."""
    fake_api.default = echo(PROMPT)
    async with work_server() as a, work_server() as b:
        conversation = await new_work(a, "ann")
        assert (await a.chat("ann", "p01 the code word is fig", conversation)).status_code == 200
        assert (await end(a, conversation)).json() == {"ended": True}

        async def let_go() -> bool:
            return await ownership.holder(db, user_id="ann", conversation_id=conversation) is None

        await eventually(let_go, within=30)
        async with db.connection() as conn:  # an instance elsewhere that never acts on notes
            await conn.execute(
                """UPDATE work_sessions SET owner = 'elsewhere/1', host = 'elsewhere',
                lease_expires_at = now() + interval '1 hour' WHERE conversation_id = $1""",
                conversation,
            )
        reply = asyncio.create_task(b.chat("ann", "p02 and the code word?", conversation))

        async def stored() -> bool:
            found = await messages(a, "ann", conversation)
            return any(m["content"].startswith("p02") for m in found)

        await eventually(stored, within=30)
        assert not reply.done()  # followed: the holder has not answered it
        async with db.connection() as conn:
            await conn.execute(
                "UPDATE work_sessions SET owner = NULL, lease_expires_at = NULL"
                " WHERE conversation_id = $1",
                conversation,
            )
        answered = await reply
        assert answered.status_code == 200, answered.text
        assert answered.json()["response"] == "echo p02"
        assert "the code word is fig" in fake_api.texts_sent(-1)
        assert (
            await ownership.holder(db, user_id="ann", conversation_id=conversation)
            == b.app.services.work.instance
        )
        assert unanswered(await messages(a, "ann", conversation)) == []
