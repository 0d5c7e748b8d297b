"""Where each table lives on a Citus cluster: the one list, and applying it.

Every table of the schema is in exactly one of the lists below (tests/test_cluster_layout.py
fails on a table in none, so a new one cannot be forgotten):

- PER_PERSON: a person's own rows, distributed by `user_id` and co-located with
  `conversations`, so each person's rows of every table are on one node and every statement
  of a request runs there. `user_id` is the tenant key: a person today, and the key a shared
  space would take for its rows tomorrow (specs/scale.md, *Shared spaces*).
- REFERENCE: small tables read together with per-person rows; a copy on every node.
- ON_COORDINATOR: sign-in and credentials, looked up by a secret's hash (the person is not
  known until the row is found) or by a key of their own; tables of the coordinator, where
  every request's statements are planned anyway: one lookup on one node, never a search of
  every shard. Also what must be unique across everyone and is allocated under one lock
  (`work_uids`: a host uid per person, never two people's the same). Plain PostgreSQL
  tables there, but for those with a foreign key to `accounts`, which Citus takes into its
  metadata (as it must, for that key) when `accounts` becomes a reference table.

`apply` runs after the migrations, whenever `parley migrate` or `parley serve` finds the
`citus` extension (specs/scale.md says why each table is where it is). It is idempotent:
what is already in place is left alone, so every instance can run it at start.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

TENANT_KEY = "user_id"
ANCHOR = "conversations"  # the co-location group's first table

PER_PERSON = (
    "conversations",
    "messages",
    "tasks",
    "task_counters",
    "agent_runs",
    "questions",
    "delegations",
    "user_events",
    "turn_tool_calls",
    "work_sessions",
    "push_subscriptions",
    "notification_prefs",
    "conversation_mutes",
    "push_outbox",
    "question_escalations",
    "mcp_calls",
    "work_usage",
    "approval_rules",
    "permission_requests",
    "audit_events",
    "person_instructions",
    "attachments",
)
REFERENCE = ("accounts",)
ON_COORDINATOR = (
    "web_sessions",
    "agent_keys",
    "passkeys",
    "second_factors",
    "invites",
    "oauth_clients",
    "oauth_grants",
    "oauth_tokens",
    "auth_challenges",
    "device_codes",
    "login_throttle",
    "push_vapid",
    "work_uids",
)
NOT_PARLEYS = ("alembic_version",)

# The functions a request calls, run whole on the person's node (force_delegation: even in
# a transaction block), by their person argument.
DISTRIBUTED_FUNCTIONS = {
    "parley_start_turn(text, bigint, conversation_mode, text, text, float8, message_role,"
    " text, int, bigint)": "p_user",
    "parley_show_branch(text, bigint, bigint)": "p_user",
    "parley_finish_turn(text, bigint, text, message_role, text, message_kind, text, jsonb,"
    " boolean, jsonb)": "p_user",
    "parley_append_message(bigint, text, message_role, text, message_kind, text, jsonb,"
    " boolean, bigint, jsonb)": "p_user",
    "parley_post_message(text, text, bigint, text, message_kind, bigint, float8, jsonb)": "p_user",
    "parley_writable(text, text, bigint)": "p_user",
    "parley_record_call(text, bigint, text, bigint, text, jsonb, jsonb, bigint)": "p_user",
    "parley_call_result(text, bigint, jsonb)": "p_user",
    "parley_add_task(text, text, text)": "p_user",
    "parley_copy_messages(text, bigint, bigint, bigint)": "p_user",
    "parley_remember_call(text, text, text, text, float8)": "p_user",
}

# Tables the realtime readers poll by writer transaction id: on a cluster that id is taken
# on the node that stores the row (parley_writer_xid), not where the statement was planned.
READ_BY_XID = ("messages", "user_events", "push_outbox")

_PLACED = """
SELECT logicalrelid::regclass::text AS name, partmethod::text AS partmethod
FROM pg_dist_partition
"""
# The schema's tables, not the shards Citus keeps of them here (a reference table's copy).
_TABLES = """
SELECT relname FROM pg_class
WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')
  AND NOT coalesce(relation_is_a_known_shard(oid), false)
"""
_TRIGGER = """
SELECT true FROM pg_trigger
WHERE tgrelid = CAST(:t AS regclass) AND tgname = CAST(:t AS text) || '_writer_xid'
"""
_DISTRIBUTED_FUNCTIONS = """
SELECT objid::regprocedure::text FROM pg_catalog.pg_dist_object
WHERE classid = 'pg_proc'::regclass AND distribution_argument_index IS NOT NULL
"""


class LayoutError(Exception):
    """The schema has a table none of the lists above places."""


def is_citus(conn: Connection) -> bool:
    return bool(
        conn.execute(text("SELECT true FROM pg_extension WHERE extname = 'citus'")).scalar()
    )


def unplaced(tables: set[str]) -> set[str]:
    return tables - set(PER_PERSON) - set(REFERENCE) - set(ON_COORDINATOR) - set(NOT_PARLEYS)


def apply(conn: Connection) -> list[str]:
    """Puts every table where the lists say (the migrations have just made them, as plain
    tables of the coordinator) and the functions on their person's node; returns what it
    did. In one transaction, under the caller's migration lock."""
    done: list[str] = []
    tables = set(conn.execute(text(_TABLES)).scalars())
    if missing := unplaced(tables):
        raise LayoutError(
            f"tables in no list of parley.cluster.layout: {sorted(missing)}; add each to "
            "PER_PERSON, REFERENCE or ON_COORDINATOR (specs/scale.md)"
        )
    database = conn.execute(text("SELECT current_database()")).scalar()
    # The per-person tables carry triggers (the person's event log, pushes, a turn's
    # abandoned reply): each fires on the node of its row and writes rows of the same
    # person there, which is what Citus calls an unsafe trigger and allows when asked.
    conn.execute(text(f'ALTER DATABASE "{database}" SET citus.enable_unsafe_triggers TO on'))
    conn.execute(text("SET LOCAL citus.enable_unsafe_triggers TO on"))
    # Sequential: the distributed tables keep foreign keys to each other, which Citus only
    # creates in a transaction that has not opened parallel connections to a node yet.
    conn.execute(text("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'"))
    placed = {r.name: r.partmethod for r in conn.execute(text(_PLACED))}
    for table in REFERENCE:
        if table not in placed:
            conn.execute(text("SELECT create_reference_table(:t)"), {"t": table})
            done.append(f"reference table {table}")
    for table in PER_PERSON:
        if placed.get(table) != "h":
            conn.execute(
                text("SELECT create_distributed_table(:t, :key, colocate_with => :with)"),
                {"t": table, "key": TENANT_KEY, "with": "none" if table == ANCHOR else ANCHOR},
            )
            done.append(f"distributed {table} by {TENANT_KEY}")
        if table in READ_BY_XID and not conn.execute(text(_TRIGGER), {"t": table}).scalar():
            conn.execute(
                text(
                    f"CREATE TRIGGER {table}_writer_xid BEFORE INSERT ON {table}"
                    " FOR EACH ROW EXECUTE FUNCTION parley_writer_xid()"
                )
            )
            done.append(f"writer xid of {table} taken on its node")
    distributed = set(conn.execute(text(_DISTRIBUTED_FUNCTIONS)).scalars())
    for signature, argument in DISTRIBUTED_FUNCTIONS.items():
        regprocedure = conn.execute(
            text("SELECT CAST(CAST(:s AS regprocedure) AS text)"), {"s": signature}
        ).scalar()
        if regprocedure not in distributed:
            conn.execute(
                text(
                    "SELECT create_distributed_function(:f, :arg, colocate_with => :with,"
                    " force_delegation => true)"
                ),
                {"f": signature, "arg": argument, "with": ANCHOR},
            )
            done.append(f"function {signature.split('(')[0]} on the node of {argument}")
    return done
