"""Where everything lives on the cluster: every per-person table distributed by user_id and
co-located, the request functions run on the person's node, every hot-path statement a
single-shard router plan to that node, and each person's rows on one worker."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from parley.assistant import store as assistant_store
from parley.assistant import store_instructions
from parley.chat import store as lease
from parley.cluster import layout
from parley.conversations import store as conversations
from parley.db import Database
from parley.messages import store as message_store
from parley.push import store as push_store
from parley.questions import store as questions
from parley.realtime import store as realtime_store
from parley.runs import store_delegations as delegations
from parley.tasks import store as tasks
from parley.tools import store as tools_store
from parley.work import store_usage as usage
from tests.cluster.helpers import Placement, on_node
from tests.conftest import Server

pytestmark = pytest.mark.cluster


async def test_every_table_is_where_the_layout_says(cluster_db: Database) -> None:
    async with cluster_db.connection() as conn:
        rows = await conn.fetch(
            "SELECT table_name::text AS name, citus_table_type AS kind,"
            " distribution_column AS key, colocation_id FROM citus_tables"
        )
        local = await conn.fetch(
            "SELECT relname AS tablename FROM pg_class"
            " WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
            " AND relname <> 'alembic_version'"
            " AND NOT coalesce(relation_is_a_known_shard(oid), false)"
        )
    found = {r["name"]: r for r in rows}
    plain = {r["tablename"] for r in local} - set(found)
    assert plain <= set(layout.ON_COORDINATOR), "a table Citus does not manage"
    for table in layout.PER_PERSON:
        assert (found[table]["kind"], found[table]["key"]) == ("distributed", "user_id"), table
    colocated = {found[t]["colocation_id"] for t in layout.PER_PERSON}
    assert len(colocated) == 1, "per-person tables in more than one co-location group"
    for table in layout.REFERENCE:
        assert found[table]["kind"] == "reference", table
    for table in layout.ON_COORDINATOR:  # plain, or (for a key to accounts) Citus's local
        assert table in plain or found[table]["kind"] == "local", table


async def test_the_request_functions_run_whole_on_the_persons_node(cluster_db: Database) -> None:
    async with cluster_db.connection() as conn:
        rows = await conn.fetch(
            "SELECT objid::regprocedure::text AS f, force_delegation FROM pg_dist_object"
            " WHERE classid = 'pg_proc'::regclass AND distribution_argument_index IS NOT NULL"
        )
        wanted = {
            await conn.fetchval("SELECT CAST(CAST($1 AS regprocedure) AS text)", signature)
            for signature in layout.DISTRIBUTED_FUNCTIONS
        }
    assert {r["f"] for r in rows if r["force_delegation"]} == wanted


def _hot_path(user: str, other_id: int = 7) -> list[tuple[str, str, tuple[Any, ...]]]:
    """Every statement a request of `user` runs on the hot path: (name, SQL, parameters)."""
    cid, mid = other_id, other_id + 1
    turn = ("t", 30.0, "user", "hi", 50, None)  # None: not on a new branch
    return [
        ("start a turn", message_store._START, (user, cid, "chat", "title", *turn)),
        (
            "finish a turn",
            message_store._FINISH,
            (user, cid, "t", "assistant", "assistant", "message", "hi", None, False, None),
        ),
        (
            "append a message",
            message_store._APPEND,
            (cid, user, "agent", "a", "message", "hi", None, False, None, None),
        ),
        (
            "post a message",
            message_store._POST,
            (user, "a", cid, "hi", "message", None, 60.0, None),
        ),
        ("history", message_store._LAST, ([cid], 50, user)),
        ("catch up a stream", message_store._AFTER, ([cid], mid, 500, user)),
        ("conversation list", conversations._SUMMARIES, (user, None)),
        ("person events", realtime_store.EVENTS_AFTER, (user, mid, 200)),
        ("renew a claim", lease._RENEW, (cid, "t", 5.0, user)),
        (
            "record a tool call",
            assistant_store._BEGIN,
            (cid, user, "t", mid, "add_task", {"title": "x"}, None, None),
        ),
        ("record its result", assistant_store._DONE, (mid, {"ok": True}, user)),
        (
            "an earlier try",
            assistant_store._EARLIER,
            (cid, mid, "t", "add_task", {"title": "x"}, user),
        ),
        ("add a task", tasks._ADD, (user, "title", None)),
        ("list tasks", tasks._LIST, (user, None)),
        ("read a question", questions._READ, (mid, user)),
        ("open questions", questions._OPEN, (user, None, 100)),
        ("a thread as its waiters read it", delegations._THREAD, (cid, user)),
        (
            "find a delegation to claim",
            delegations._FIND.format(where=delegations._OPEN),
            (user, "coder"),
        ),
        (
            "find one's own claim again",
            delegations._FIND.format(where=delegations._MINE),
            (user, "coder", "me"),
        ),
        (
            "lock the delegation found",
            delegations._LOCK.format(where=delegations._OPEN, n=3),
            (user, "coder", cid),
        ),
        ("claim pushes", push_store._CLAIM, (10, 60.0, user)),
        (
            "search recent",
            message_store._FROM_RECENT,
            (user, "'milk':*", message_store.CANDIDATES, "'milk'", 20, message_store.RECENT),
        ),
        (
            "search the index",
            message_store._FROM_INDEX,
            (user, "'milk':*", message_store.CANDIDATES, "'milk'", 20),
        ),
        (
            "search words like a typo's",
            message_store._similar_sql(1, True),
            (user, message_store.CANDIDATES, 20, "mlik", "'oat'"),
        ),
        ("remember an MCP call", tools_store._CLAIM, (user, "", "k", "add_task", 30.0)),
        ("read an MCP call", tools_store._READ, (user, "", "k")),
        ("count a work session's tokens", usage._ADD, (user, cid, 10, 20, 0, 0)),
        ("a person's work usage", usage._OF_PERSON, (user,)),
        ("a chat's chosen model", conversations._CHOSEN_MODEL, (cid, user)),
        ("a person's instructions", store_instructions._READ, (user,)),
    ]


async def test_each_hot_path_statement_is_one_shards_router_plan(
    placement: Placement, cluster_db: Database
) -> None:
    for worker in placement.cluster.workers:
        user = await placement.person_on(worker, "plan")
        async with cluster_db.connection() as conn:
            for name, sql, params in _hot_path(user):
                if "parley_" in sql:  # a delegated call's remote plan is only shown for literals
                    sql, params = _literal(sql, params), ()
                plan = "\n".join(
                    r[0] for r in await conn.fetch(f"EXPLAIN (COSTS OFF) {sql}", *params)
                )
                tasks_in = re.findall(r"Task Count: (\d+)", plan)
                assert tasks_in == ["1"], f"{name}: not one task\n{plan}"
                assert f"port={worker.port}" in plan, f"{name}: not on {worker.name}\n{plan}"


def _literal(sql: str, params: tuple[Any, ...]) -> str:
    """The statement with its parameters written in (for EXPLAIN only)."""

    def quoted(value: Any) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int | float):
            return repr(value)
        if isinstance(value, list):
            return f"ARRAY[{', '.join(quoted(v) for v in value)}]"
        text = json.dumps(value) if isinstance(value, dict) else str(value)
        return "'" + text.replace("'", "''") + "'"

    for number in range(len(params), 0, -1):
        sql = sql.replace(f"${number}", quoted(params[number - 1]))
    return sql


async def test_each_persons_rows_live_on_one_worker_and_both_workers_hold_rows(
    instances: tuple[Server, Server], placement: Placement, cluster: Any
) -> None:
    one, two = instances
    people = await placement.one_on_each("rows")
    for person in people:
        assert (await one.chat(person, "add a task to water the plants")).status_code == 200
        assert (await two.chat(person, "list my tasks")).status_code == 200
    for person in people:
        home = await placement.worker_of(person)
        for node in cluster.nodes:
            counts = await _rows_of(node, person)
            if node == home:
                assert all(counts[t] > 0 for t in ("conversations", "messages", "tasks")), counts
            else:
                assert sum(counts.values()) == 0, (node.name, counts)


async def _rows_of(node: Any, user_id: str) -> dict[str, int]:
    """The person's rows of each per-person table in the shards placed on `node` (read on
    the node itself, shard by shard)."""
    counts = dict.fromkeys(layout.PER_PERSON, 0)
    async with on_node(node) as conn:
        shards = await conn.fetch(
            "SELECT logicalrelid::regclass::text AS t, shard_name(logicalrelid, s.shardid) AS s"
            " FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)"
            " WHERE p.groupid = (SELECT groupid FROM pg_dist_local_group)"
            " AND logicalrelid::regclass::text = ANY($1::text[])",
            list(layout.PER_PERSON),
        )
        for shard in shards:
            counts[shard["t"]] += await conn.fetchval(
                f"SELECT count(*) FROM {shard['s']} WHERE user_id = $1", user_id
            )
    return counts
