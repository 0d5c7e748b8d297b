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

On one PostgreSQL nothing a request sees changes.

Revision ID: 0060
Revises: 0052
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0060"
down_revision: str | None = "0052"
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
)

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
# Their new bodies, and the other functions whose statements now name the person.
FUNCTIONS = (
    *RETYPED,
    "user_event",
    "push_message",
    "push_question",
    "close_run_questions",
    "turn_abandoned",
    "writer_xid",
    "detach_runs",
)
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
)


def upgrade() -> None:
    for table in PER_PERSON:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN user_id TYPE text")
    for table, column, _ref, _ref_column, _before, _after in FOREIGN_KEYS:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_{column}_fkey")
    op.execute("ALTER TABLE push_outbox DROP CONSTRAINT uq_push_outbox_once")
    op.execute("ALTER SEQUENCE conversations_id_seq AS bigint")
    for table, column in CONVERSATION_COLUMNS:
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
    op.execute("DROP FUNCTION IF EXISTS parley_detach_runs()")
    op.execute("DROP FUNCTION IF EXISTS parley_writer_xid()")
    for name, arguments in RETYPED.items():
        op.execute(f"DROP FUNCTION IF EXISTS parley_{name}({arguments.format('bigint')})")
    for table, column, _ref, _ref_column, _before, _after in FOREIGN_KEYS:
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_{column}_fkey")
    op.execute("ALTER TABLE push_outbox DROP CONSTRAINT uq_push_outbox_once")
    for table, (before, _after) in PRIMARY_KEYS.items():
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey,"
            f" ADD CONSTRAINT {table}_pkey PRIMARY KEY ({before})"
        )
    for table, column in CONVERSATION_COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE integer")
    for table in PER_PERSON:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN user_id TYPE varchar(64)")
    op.execute("ALTER SEQUENCE conversations_id_seq AS integer")
    op.execute(
        "ALTER TABLE push_outbox ADD CONSTRAINT uq_push_outbox_once"
        " UNIQUE (subscription_id, kind, ref)"
    )
    for table, column, ref, ref_column, before, _after in FOREIGN_KEYS:
        op.execute(
            f"ALTER TABLE {table} ADD CONSTRAINT {table}_{column}_fkey"
            f" FOREIGN KEY ({column}) REFERENCES {ref} ({ref_column}) ON DELETE {before}"
        )
    for name in FUNCTIONS:
        if name not in ("writer_xid", "detach_runs"):
            op.execute(_int_bodies(name))
