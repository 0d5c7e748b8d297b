"""What work sessions keep on the cluster beyond `work_sessions`: the tokens each person's
sessions used (a per-person table, added to on the person's worker) and each person's host
uid (one table on the coordinator: unique across everyone, allocated under one lock)."""

from __future__ import annotations

import asyncio

import pytest

from parley.db import Database
from parley.work import identity, sandbox, usage
from parley.work.usage import Tokens
from tests.cluster.helpers import Placement, on_node
from tests.conftest import settings_for

pytestmark = pytest.mark.cluster


async def test_a_burst_of_responses_adds_up_on_each_persons_own_worker(
    placement: Placement, cluster_db: Database
) -> None:
    people = await placement.one_on_each("usage")
    one = Tokens(input_tokens=3, output_tokens=5, cache_read_input_tokens=7)
    # Twenty responses of each person's session at once, counted by two relays (the upsert
    # on an existing row is what a cluster refuses if its DO UPDATE reads the clock).
    await asyncio.gather(
        *(
            usage.add(cluster_db, user_id=person, conversation_id=41, tokens=one)
            for person in people
            for _ in range(20)
        )
    )
    for person in people:
        [row] = await usage.of_person(cluster_db, user_id=person)
        assert (row.conversation_id, row.requests) == (41, 20)
        assert (row.input_tokens, row.output_tokens, row.cache_read_input_tokens) == (60, 100, 140)
        assert row.title is None  # a conversation of that id is not theirs
        home = await placement.worker_of(person)
        for node in placement.cluster.workers:
            async with on_node(node) as conn:
                shards = await conn.fetch(
                    "SELECT shard_name(logicalrelid, s.shardid) AS s FROM pg_dist_shard s"
                    " JOIN pg_dist_placement p USING (shardid)"
                    " WHERE p.groupid = (SELECT groupid FROM pg_dist_local_group)"
                    " AND logicalrelid = 'work_usage'::regclass"
                )
                held = 0
                for shard in shards:
                    held += await conn.fetchval(
                        f"SELECT count(*) FROM {shard['s']} WHERE user_id = $1", person
                    )
            assert held == (1 if node == home else 0), (person, node.name)


@pytest.mark.skipif(not sandbox.runs_as_root(), reason="uids are allocated only as root")
async def test_people_on_different_workers_never_share_a_uid(
    placement: Placement, cluster_db: Database
) -> None:
    settings = settings_for(PARLEY_WORK_UID_MIN=1_500_000, PARLEY_WORK_UID_MAX=1_500_050)
    people = [p for i in range(3) for p in await placement.one_on_each(f"uid{i}")]
    # Each person's first session start on two instances at once, everyone together.
    first = await asyncio.gather(
        *(
            identity.uid_for(cluster_db, settings, user_id=person)
            for person in people
            for _ in range(2)
        )
    )
    uids = dict(zip([p for p in people for _ in range(2)], first, strict=True))
    assert len(set(uids.values())) == len(people)
    assert all(first[2 * i] == first[2 * i + 1] for i in range(len(people)))
    for person in people:  # kept: the next start gets the same one
        assert await identity.uid_for(cluster_db, settings, user_id=person) == uids[person]
