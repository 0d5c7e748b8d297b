"""Every key of a person's tables holds the person: what a Citus cluster needs to keep each
person's rows on one node (specs/scale.md)

- Primary and unique keys of per-person tables include `user_id`, and so do the foreign keys
  between them (a child row already has its parent's `user_id`).
- `conversations.id` (and every column naming a conversation) is a `bigint`: on a cluster a
  new chat's conversation is made on the person's node, whose ids come from its own range.
- No key between per-person tables sets its columns NULL on delete (Citus cannot: it would
  null `user_id` too). References to runs keep NO ACTION (runs are never deleted); a
  message's reply and a question's answer go with the message (they are only ever deleted
  with their whole conversation, where they go anyway); a deleted conversation's runs lose
  it through a trigger (`parley_detach_runs`) instead.
- `user_id` of a per-person table is `text`, the type of the functions' person argument:
  Citus runs a function on its person's node only when each statement there filters by the
  very value it was called with, type and length included (a `varchar(64)` column made the
  value another). User ids are checked (64 characters at most) before they reach SQL.
- The functions name the person in every statement (so each is one node's work) and take
  bigint conversation ids; a message's and a person event's id is past the newest one of
  its conversation or person (ids stay in order when a person's shard moves to a node that
  draws lower ones).

`work_usage` (0053) is a person's too, and already keyed by (user_id, conversation_id): its
user_id becomes text and its conversation a bigint like the others. `work_uids` (0053) is
not: a uid is unique across everyone, allocated under one lock, so it stays a plain table
of the coordinator (as sign-in does), and keeps its keys.

On one PostgreSQL nothing a request sees changes.

Revision ID: 0060
Revises: 0056
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0060"
down_revision: str | None = "0056"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Columns naming a conversation: bigint from here on.
CONVERSATION_COLUMNS = (
    ("conversations", "id"),
    ("messages", "conversation_id"),
    ("agent_runs", "conversation_id"),
    ("questions", "conversation_id"),
    ("delegations", "thread_id"),
    ("turn_tool_calls", "conversation_id"),
    ("work_sessions", "conversation_id"),
    ("conversation_mutes", "conversation_id"),
    ("push_outbox", "conversation_id"),
    ("work_usage", "conversation_id"),
)
# Made on a person's node too (a task added through parley_add_task): bigint, like these.
OTHER_IDS = (("tasks", "id"),)

# table: (its primary key before, after)
PRIMARY_KEYS = {
    "conversations": ("id", "user_id, id"),
    "tasks": ("id", "user_id, id"),
    "messages": ("id", "user_id, id"),
    "agent_runs": ("id", "user_id, id"),
    "questions": ("message_id", "user_id, message_id"),
    "delegations": ("thread_id", "user_id, thread_id"),
    "user_events": ("id", "user_id, id"),
    "turn_tool_calls": ("id", "user_id, id"),
    "work_sessions": ("conversation_id", "user_id, conversation_id"),
    "push_subscriptions": ("id", "user_id, id"),
    "conversation_mutes": ("conversation_id", "user_id, conversation_id"),
    "push_outbox": ("id", "user_id, id"),
    "question_escalations": ("question_id", "user_id, question_id"),
}

# (table, column, referenced table, referenced column, ON DELETE before, after); the keys
# after are (user_id, column) → (user_id, referenced column).
FOREIGN_KEYS = (
    ("messages", "conversation_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("messages", "reply_to", "messages", "id", "SET NULL", "CASCADE"),
    ("agent_runs", "conversation_id", "conversations", "id", "SET NULL", "NO ACTION"),
    ("agent_runs", "parent_run_id", "agent_runs", "id", "SET NULL", "NO ACTION"),
    ("questions", "message_id", "messages", "id", "CASCADE", "CASCADE"),
    ("questions", "conversation_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("questions", "run_id", "agent_runs", "id", "SET NULL", "NO ACTION"),
    ("questions", "answer_id", "messages", "id", "SET NULL", "CASCADE"),
    ("delegations", "thread_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("delegations", "parent_run_id", "agent_runs", "id", "SET NULL", "NO ACTION"),
    ("delegations", "child_run_id", "agent_runs", "id", "SET NULL", "NO ACTION"),
    ("turn_tool_calls", "conversation_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("work_sessions", "conversation_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("work_sessions", "run_id", "agent_runs", "id", "SET NULL", "NO ACTION"),
    ("conversation_mutes", "conversation_id", "conversations", "id", "CASCADE", "CASCADE"),
    ("push_outbox", "subscription_id", "push_subscriptions", "id", "CASCADE", "CASCADE"),
    (
        "question_escalations",
        "question_id",
        "questions",
        "message_id",
        "CASCADE",
        "CASCADE",
    ),
)

# Functions whose conversation argument becomes a bigint: name → their arguments, the
# conversation marked `{}`.
RETYPED = {
    "start_turn": "text, {}, conversation_mode, text, text, float8, message_role, text, int",
    "finish_turn": "text, {}, text, message_role, text, message_kind, text, jsonb, boolean, jsonb",
    "append_message": (
        "{}, text, message_role, text, message_kind, text, jsonb, boolean, bigint, jsonb"
    ),
    "post_message": "text, text, {}, text, message_kind, bigint, float8, jsonb",
    "writable": "text, text, {}",
    "push_enqueue": "text, text, bigint, {}",
}
# The other functions whose statements now name the person.
OTHER_FUNCTIONS = (
    "user_event",
    "push_message",
    "push_question",
    "close_run_questions",
    "turn_abandoned",
)
# All their new bodies, and the new functions: a trigger's, and statements Citus cannot take
# with parameters (an INSERT ... SELECT), now functions.
FUNCTIONS = (
    *RETYPED,
    *OTHER_FUNCTIONS,
    "writer_xid",
    "detach_runs",
    "record_call",
    "call_result",
    "add_task",
    "copy_messages",
    "remember_call",
)
NEW_FUNCTIONS = (
    "parley_writer_xid()",
    "parley_detach_runs()",
    "parley_record_call(text, bigint, text, bigint, text, jsonb, jsonb, bigint)",
    "parley_call_result(text, bigint, jsonb)",
    "parley_add_task(text, text, text)",
    "parley_copy_messages(text, bigint, bigint, bigint)",
    "parley_remember_call(text, text, text, text, float8)",
)
# Indexes: the one most statements walk leads with the person too (else the planner may take
# the new primary key (user_id, id) and filter), and those the new keys duplicate go.
INDEXES_BEFORE = (
    "CREATE INDEX ix_messages_conversation_id_id ON messages (conversation_id, id DESC)",
    "CREATE INDEX ix_messages_user_id ON messages (user_id)",
    "CREATE INDEX ix_messages_user_id_id ON messages (user_id, id DESC)",
    "CREATE INDEX ix_user_events_user_id_id ON user_events (user_id, id)",
    "CREATE INDEX ix_work_sessions_user_id ON work_sessions (user_id)",
    "CREATE INDEX ix_agent_runs_conversation_id ON agent_runs (conversation_id)",
)
INDEXES_AFTER = (
    "CREATE INDEX ix_messages_user_id_conversation_id_id"
    " ON messages (user_id, conversation_id, id DESC)",
    "CREATE INDEX ix_agent_runs_user_id_conversation_id ON agent_runs (user_id, conversation_id)",
)


def _index_name(create: str) -> str:
    return create.split()[2]


DETACH = """
CREATE TRIGGER conversations_detach_runs BEFORE DELETE ON conversations
    FOR EACH ROW EXECUTE FUNCTION parley_detach_runs()
"""


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
)


def upgrade() -> None:
    for table in PER_PERSON:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN user_id TYPE text")
    for table, column, _ref, _ref_column, _before, _after in FOREIGN_KEYS:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_{column}_fkey")
    op.execute("ALTER TABLE push_outbox DROP CONSTRAINT uq_push_outbox_once")
    op.execute("ALTER SEQUENCE conversations_id_seq AS bigint")
    op.execute("ALTER SEQUENCE tasks_id_seq AS bigint")
    for table, column in (*CONVERSATION_COLUMNS, *OTHER_IDS):
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE bigint")
    for table, (_before, after) in PRIMARY_KEYS.items():
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey,"
            f" ADD CONSTRAINT {table}_pkey PRIMARY KEY ({after})"
        )
    op.execute(
        "ALTER TABLE push_outbox ADD CONSTRAINT uq_push_outbox_once"
        " UNIQUE (user_id, subscription_id, kind, ref)"
    )
    for create in INDEXES_BEFORE:
        op.execute(f"DROP INDEX {_index_name(create)}")
    for create in INDEXES_AFTER:
        op.execute(create)
    for table, column, ref, ref_column, _before, after in FOREIGN_KEYS:
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {table}_{column}_fkey"
            f" FOREIGN KEY (user_id, {column}) REFERENCES {ref} (user_id, {ref_column})"
            f" ON DELETE {after}"
        )
    # Older revisions apply today's files, so a database made from scratch has both
    # versions of some; one upgraded over time has only the int ones.
    for name, arguments in RETYPED.items():
        op.execute(f"DROP FUNCTION IF EXISTS parley_{name}({arguments.format('int')})")
    sql.apply(op.execute, *FUNCTIONS)
    op.execute(DETACH)


def _int_bodies(name: str) -> str:
    """A function of this revision, as it was declared before it (int conversation ids); its
    statements naming the person are right on the old keys as well."""
    text = sql.source(name)
    for old, new in (
        ("p_conversation bigint", "p_conversation int"),
        ("v_conversation bigint", "v_conversation int"),
    ):
        text = text.replace(old, new)
    return text


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS conversations_detach_runs ON conversations")
    for signature in NEW_FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {signature}")
    for name, arguments in RETYPED.items():
        op.execute(f"DROP FUNCTION IF EXISTS parley_{name}({arguments.format('bigint')})")
    for table, column, _ref, _ref_column, _before, _after in FOREIGN_KEYS:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_{column}_fkey")
    op.execute("ALTER TABLE push_outbox DROP CONSTRAINT uq_push_outbox_once")
    for create in INDEXES_AFTER:
        op.execute(f"DROP INDEX {_index_name(create)}")
    for create in INDEXES_BEFORE:
        op.execute(create)
    for table, (before, _after) in PRIMARY_KEYS.items():
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey,"
            f" ADD CONSTRAINT {table}_pkey PRIMARY KEY ({before})"
        )
    for table, column in (*CONVERSATION_COLUMNS, *OTHER_IDS):
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE integer")
    for table in PER_PERSON:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN user_id TYPE varchar(64)")
    op.execute("ALTER SEQUENCE conversations_id_seq AS integer")
    op.execute("ALTER SEQUENCE tasks_id_seq AS integer")
    op.execute(
        "ALTER TABLE push_outbox ADD CONSTRAINT uq_push_outbox_once"
        " UNIQUE (subscription_id, kind, ref)"
    )
    for table, column, ref, ref_column, before, _after in FOREIGN_KEYS:
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {table}_{column}_fkey"
            f" FOREIGN KEY ({column}) REFERENCES {ref} ({ref_column}) ON DELETE {before}"
        )
    for name in (*RETYPED, *OTHER_FUNCTIONS):
        op.execute(_int_bodies(name))
