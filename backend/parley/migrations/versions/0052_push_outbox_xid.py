"""The push outbox carries its writer's transaction id, like messages and person events, so
each instance's reader finds new pushes by snapshot and wakes its sender only for them (it
woke on every message before: two wasted claims per chat turn)

Revision ID: 0052
Revises: 0051
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0052"
down_revision: str | None = "0051"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE push_outbox ADD COLUMN xid xid8")
    op.execute("ALTER TABLE push_outbox ALTER COLUMN xid SET DEFAULT pg_current_xact_id()")
    op.execute("CREATE INDEX ix_push_outbox_xid ON push_outbox (xid)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_push_outbox_xid")
    op.execute("ALTER TABLE push_outbox DROP COLUMN IF EXISTS xid")
