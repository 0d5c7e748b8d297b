"""Announce every stored message with a trigger

Every writer (the chat turn, agents, a work session, plain SQL) gets the NOTIFY that wakes the
event streams without having to remember it, and it costs no extra round trip.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION parley_notify_message() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify(
                'parley_messages',
                json_build_object(
                    'conversation_id', NEW.conversation_id, 'message_id', NEW.id
                )::text
            );
            RETURN NULL;
        END;
        $$ LANGUAGE plpgsql
        """
    )
    op.execute(
        "CREATE TRIGGER messages_notify AFTER INSERT ON messages "
        "FOR EACH ROW EXECUTE FUNCTION parley_notify_message()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS messages_notify ON messages")
    op.execute("DROP FUNCTION IF EXISTS parley_notify_message()")
