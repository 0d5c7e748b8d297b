"""What must happen once, however many instances race for it, on a Citus cluster and for
people on both workers: a question's answer, a delegation's claim, a work session's lease, a
push per device, an MCP task answered through another instance and a tool call sent twice."""

from __future__ import annotations

import asyncio
import collections

import pytest

from parley.chat import lease, store
from parley.db import Database
from parley.questions.expiry import expire_overdue
from parley.work import ownership
from tests.cluster.helpers import Placement
from tests.conftest import Server, eventually
from tests.push.fake_push import fake_push_service
from tests.runs.helpers import Actor, delegate, error_code
from tests.tools.mcp_wire import Wire

pytestmark = pytest.mark.cluster


async def test_a_question_takes_one_answer_of_ten_sent_through_two_instances(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("ask"):
        question = await Actor(one, user, "planner").ask("/inbox/messages", "Deploy now?")
        waiting = asyncio.create_task(
            Actor(two, user, "planner").ok("GET", f"/questions/{question}", params={"wait": 30})
        )
        await two.waiting_for(question)
        people = [Actor(one, user), Actor(two, user)]
        responses = await asyncio.gather(
            *(
                people[i % 2].call(
                    "POST", f"/questions/{question}/answer", json={"text": f"yes {i}"}
                )
                for i in range(10)
            )
        )
        assert sorted(r.status_code for r in responses) == [201] + [409] * 9
        assert {error_code(r) for r in responses if r.status_code == 409} == {"already_answered"}
        winner = next(r.json() for r in responses if r.status_code == 201)
        got = await waiting
        assert got["status"] == "answered" and got["answer"]["content"] == winner["content"]
        history = await Actor(two, user).ok(
            "GET", f"/conversations/{winner['conversation_id']}/messages"
        )
        assert [m["id"] for m in history if m["kind"] == "answer"] == [winner["id"]]


async def test_each_delegation_is_claimed_by_exactly_one_of_the_racing_workers(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("deleg"):
        architect = Actor(one, user, "architect")
        run = await architect.start_run("split the work")
        threads = [await delegate(architect, run, f"part {i}") for i in range(4)]
        coders = [Actor(server, user, "coder") for server in (one, two, one, two, one, two)]
        got = await asyncio.gather(
            *(
                coder.ok("GET", "/delegations/next", params={"wait": 2, "claimer": f"w{i}"})
                for i, coder in enumerate(coders)
            )
        )
        claimed = [g["delegation"]["thread_id"] for g in got if g["delegation"] is not None]
        assert sorted(claimed) == sorted(threads)  # each one, to one worker


async def test_a_work_sessions_lease_has_one_holder_whatever_races_for_it(
    cluster_db: Database, placement: Placement
) -> None:
    """Two instances' lease code (as `WorkManager` runs it) racing on the cluster."""
    for user in await placement.one_on_each("lease"):
        async with cluster_db.connection() as conn:
            conversation = await conn.fetchval(
                "INSERT INTO conversations (user_id, mode, title) VALUES ($1, 'work', 'w')"
                " RETURNING id",
                user,
            )
        here, there = ownership.Owner.here(), ownership.Owner.here()
        holders = await asyncio.gather(
            *(
                ownership.claim(
                    cluster_db,
                    owner=owner,
                    conversation_id=conversation,
                    user_id=user,
                    workspace="w",
                )
                for owner in (here, there) * 5
            )
        )
        assert len(set(holders)) == 1  # every claimer sees the same single holder
        winner = here if holders[0] == here.instance else there
        loser = there if winner is here else here
        assert conversation in await ownership.renew(cluster_db, owner=winner)
        assert conversation not in await ownership.renew(cluster_db, owner=loser)
        async with cluster_db.connection() as conn:  # the holder dies: its lease lapses
            await conn.execute(
                "UPDATE work_sessions SET lease_expires_at = now() - interval '1 hour'"
                " WHERE user_id = $1 AND conversation_id = $2",
                user,
                conversation,
            )
        [found] = [f for f in await ownership.lapsed(cluster_db, owner=loser) if f.user_id == user]
        freed = await asyncio.gather(
            ownership.free(cluster_db, found), ownership.free(cluster_db, found)
        )
        assert sorted(freed) == [False, True]  # freed once
        assert (
            await ownership.holder(cluster_db, user_id=user, conversation_id=conversation) is None
        )


async def test_a_question_pushes_once_per_device_with_two_senders(
    instances: tuple[Server, Server], placement: Placement, cluster_db: Database
) -> None:
    one, two = instances
    async with fake_push_service() as service:
        people = await placement.one_on_each("push")
        questions = {}
        for user in people:
            for device in (f"{user}-phone", f"{user}-laptop"):
                await Actor(one, user).ok(
                    "POST", "/push-subscriptions", 201, json=service.device(device).subscription()
                )
            questions[user] = await Actor(two, user, "planner").ask(
                "/inbox/messages", "Should I deploy?"
            )

        def all_pushed() -> bool:
            return all(service.delivered(f"{u}-{d}") for u in people for d in ("phone", "laptop"))

        await service.wait_for(all_pushed)
        await _senders_idle(cluster_db, people)
        for user in people:
            for device in ("phone", "laptop"):
                [push] = service.delivered(f"{user}-{device}")
                assert push["kind"] == "question" and push["question_id"] == questions[user]
        assert len(service.received) == 2 * len(people)  # once per device, not per sender


async def _senders_idle(db: Database, people: list[str]) -> None:
    for _ in range(400):
        async with db.connection() as conn:
            pending = await conn.fetchval(
                "SELECT count(*) FROM push_outbox WHERE user_id = ANY($1::text[])"
                " AND status = 'pending'",
                people,
            )
        if pending == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("pushes still pending")


async def test_an_mcp_task_made_on_one_instance_is_answered_and_served_by_the_other(
    instances: tuple[Server, Server], placement: Placement
) -> None:
    one, two = instances
    for user in await placement.one_on_each("mcp"):
        on_one, on_two = Wire(one.base_url, user, "helper"), Wire(two.base_url, user, "helper")
        created = await on_one.call("ask_user", {"question": "Which colour?"}, call_id="toolu_c")
        assert created["resultType"] == "task", created
        task_id = created["taskId"]
        [question] = await Actor(two, user).ok("GET", "/questions")
        await Actor(two, user).ok(
            "POST", f"/questions/{question['question']['id']}/answer", 201, json={"text": "Blue"}
        )
        done = (await on_two.task("tasks/get", task_id))["result"]
        assert done["status"] == "completed", done
        assert done["result"]["structuredContent"]["answer"] == "Blue"

        copies = [
            Wire(base, user, "helper", tasks=False).call(
                "add_task", {"title": "Paint it blue"}, call_id="toolu_race"
            )
            for base in (one.base_url, two.base_url) * 3
        ]
        results = await asyncio.gather(*copies)
        assert len({r["structuredContent"]["task_id"] for r in results}) == 1, results
        tasks = await Actor(one, user).ok("GET", "/tasks")
        assert collections.Counter(t["title"] for t in tasks)["Paint it blue"] == 1


async def test_a_dead_turns_claim_is_released_once_by_racing_sweeps_and_answered(
    cluster_db: Database, placement: Placement
) -> None:
    """The sweep finds lapsed claims on every node, then releases each on its person's node,
    where the trigger answers the dead turn (a reply marked interrupted)."""
    people = await placement.one_on_each("sweep")
    conversations = {}
    for user in people:
        async with cluster_db.connection() as conn:
            [asked] = await store.start(
                conn,
                turn_id=store.new_turn_id(),
                user_id=user,
                conversation_id=None,
                title="dies mid-turn",
                ttl_seconds=0.3,
                content="add a task to survive",
                history_limit=10,
            )
        conversations[user] = asked.conversation_id

    async def lapsed() -> bool:
        async with cluster_db.connection() as conn:
            return bool(
                await conn.fetchval(
                    "SELECT bool_and(turn_expires_at < now()) FROM conversations"
                    " WHERE user_id = ANY($1::text[])",
                    people,
                )
            )

    await eventually(lapsed)
    released = await asyncio.gather(*(lease.sweep(cluster_db) for _ in range(4)))
    assert sum(released) >= len(people)  # (other tests' lapsed claims may be swept too)
    for user, conversation_id in conversations.items():
        async with cluster_db.connection() as conn:
            rows = await conn.fetch(
                "SELECT role::text, error, meta FROM messages WHERE user_id = $1"
                " AND conversation_id = $2 ORDER BY id",
                user,
                conversation_id,
            )
            claim = await conn.fetchval(
                "SELECT turn_id FROM conversations WHERE user_id = $1 AND id = $2",
                user,
                conversation_id,
            )
        assert [(r["role"], r["error"]) for r in rows] == [("user", False), ("assistant", True)]
        assert rows[1]["meta"] == {"interrupted": True}
        assert claim is None


async def test_an_overdue_question_times_out_once_whichever_sweeps_reach_it(
    instances: tuple[Server, Server], placement: Placement, cluster_db: Database
) -> None:
    one, two = instances
    for user in await placement.one_on_each("overdue"):
        agent = Actor(one, user, "planner")
        run = await agent.start_run("waiting")
        question = await agent.ask(
            f"/conversations/{run['conversation_id']}/messages", "Still there?", timeout_s=0.5
        )
        waiting = asyncio.create_task(
            Actor(two, user, "planner").ok("GET", f"/questions/{question}", params={"wait": 20})
        )

        async def overdue(user: str = user, question: int = question) -> bool:
            async with cluster_db.connection() as conn:
                return bool(
                    await conn.fetchval(
                        "SELECT timeout_at <= now() FROM questions"
                        " WHERE user_id = $1 AND message_id = $2",
                        user,
                        question,
                    )
                )

        await eventually(overdue)

        async def sweep() -> None:
            async with cluster_db.connection() as conn:
                await expire_overdue(conn)

        await asyncio.gather(sweep(), sweep(), sweep())
        got = await waiting
        assert got["status"] == "timed_out" and got["answer"] is None
        assert (await agent.ok("GET", f"/runs/{run['id']}"))["status"] == "running"
        late = await Actor(one, user).call(
            "POST", f"/questions/{question}/answer", json={"text": "yes"}
        )
        assert late.status_code == 409
