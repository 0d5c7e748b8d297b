"""A work session's owner is a lease in its row, not a connection's name

The instance that runs a session's `claude` process holds the lease (`owner`, renewed until
`lease_expires_at`), with what identifies the server and the process on their host (`host`,
`owner_pid`/`owner_started`, `pid`/`pid_started`): a reaper on any instance of that host
ends the process of a lapsed lease whose server is gone, after checking it is the very
process that was started (not a reused pid).

Revision ID: 0041
Revises: 0040
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0041"
down_revision: str | None = "0040"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("owner", "lease_expires_at", "host", "owner_pid", "owner_started", "pid", "pid_started")


def upgrade() -> None:
    op.add_column("work_sessions", sa.Column("owner", sa.Text, nullable=True))
    op.add_column(
        "work_sessions", sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column("work_sessions", sa.Column("host", sa.Text, nullable=True))
    op.add_column("work_sessions", sa.Column("owner_pid", sa.Integer, nullable=True))
    op.add_column("work_sessions", sa.Column("owner_started", sa.Float, nullable=True))
    op.add_column("work_sessions", sa.Column("pid", sa.Integer, nullable=True))
    op.add_column("work_sessions", sa.Column("pid_started", sa.Float, nullable=True))
    op.create_index(
        "ix_work_sessions_owner",
        "work_sessions",
        ["owner"],
        postgresql_where=sa.text("owner IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_work_sessions_owner", table_name="work_sessions")
    for column in COLUMNS:
        op.drop_column("work_sessions", column)
