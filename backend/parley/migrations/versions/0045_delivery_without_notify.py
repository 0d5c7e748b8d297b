"""Live delivery without a NOTIFY in the writers' transactions

PostgreSQL serialises the commits of every transaction that sent a NOTIFY (one global lock
on the notification queue), so the per-insert triggers of 0002 (`parley_messages`) and 0010
(`parley_events`) capped a whole deployment's writes at a few thousand a second, however
many cores. Writers now only append: each `messages` and `user_events` row records the id of
the transaction that wrote it (`xid`, `pg_current_xact_id()`), and each instance's reader
(`parley.realtime.reader`) follows both tables by snapshot, which finds every committed row
once, whatever order ids and commits came in (specs/realtime.md says why).

Rows written before this revision keep a NULL `xid`: they were committed long before any
reader's first snapshot, which is all the reader needs to know of them.

Revision ID: 0045
Revises: 0044
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0045"
down_revision: str | None = "0044"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

USER_EVENT_WITHOUT_NOTIFY = """
CREATE OR REPLACE FUNCTION parley_user_event(
    p_user text, p_kind text, p_action text, p_ref bigint, p_data jsonb
) RETURNS void AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(2, hashtext(p_user));
    INSERT INTO user_events (user_id, kind, action, ref, data)
    VALUES (p_user, p_kind, p_action, p_ref, p_data);
END
$$ LANGUAGE plpgsql
"""

USER_EVENT_WITH_NOTIFY = """
CREATE OR REPLACE FUNCTION parley_user_event(
    p_user text, p_kind text, p_action text, p_ref bigint, p_data jsonb
) RETURNS void AS $$
DECLARE
    v_id bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(2, hashtext(p_user));
    INSERT INTO user_events (user_id, kind, action, ref, data)
    VALUES (p_user, p_kind, p_action, p_ref, p_data) RETURNING id INTO v_id;
    PERFORM pg_notify('parley_events', json_build_object(
        'u', p_user, 'k', p_kind, 'r', p_ref, 'i', v_id)::text);
END
$$ LANGUAGE plpgsql
"""

NOTIFY_MESSAGE = """
CREATE FUNCTION parley_notify_message() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify(
        'parley_messages',
        json_build_object('conversation_id', NEW.conversation_id, 'message_id', NEW.id)::text
    );
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    for table in ("messages", "user_events"):
        # Added without a default first: a volatile default would rewrite the table.
        op.execute(f"ALTER TABLE {table} ADD COLUMN xid xid8")
        op.execute(f"ALTER TABLE {table} ALTER COLUMN xid SET DEFAULT pg_current_xact_id()")
        op.execute(f"CREATE INDEX ix_{table}_xid ON {table} (xid)")
    op.execute("DROP TRIGGER IF EXISTS messages_notify ON messages")
    op.execute("DROP FUNCTION IF EXISTS parley_notify_message()")
    op.execute(USER_EVENT_WITHOUT_NOTIFY)


def downgrade() -> None:
    op.execute(USER_EVENT_WITH_NOTIFY)
    op.execute(NOTIFY_MESSAGE)
    op.execute(
        "CREATE TRIGGER messages_notify AFTER INSERT ON messages "
        "FOR EACH ROW EXECUTE FUNCTION parley_notify_message()"
    )
    for table in ("messages", "user_events"):
        op.execute(f"DROP INDEX IF EXISTS ix_{table}_xid")
        op.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS xid")
