"""Conversations can be archived (out of the list, restorable) and pinned (at its top).

Two nullable timestamps on `conversations`: when it was archived or pinned, NULL when not.
Plain columns on an existing distributed table: a cluster adds them on every node itself.

Revision ID: 0070
Revises: 0069
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0070"
down_revision: str | None = "0069"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "conversations", sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.add_column(
        "conversations", sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("conversations", "pinned_at")
    op.drop_column("conversations", "archived_at")
