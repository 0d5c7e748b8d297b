"""A conversation's chosen model, and each person's own instructions to the assistant

`conversations.model` is NULL until the person picks one: the configured model answers
then. `person_instructions` is a per-person table (one row per person, keyed by user_id),
distributed by user_id on a cluster like the others (cluster/layout.py).

Revision ID: 0068
Revises: 0067
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0068"
down_revision: str | None = "0067"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("conversations", sa.Column("model", sa.Text, nullable=True))
    op.create_table(
        "person_instructions",
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("user_id"),
    )


def downgrade() -> None:
    op.drop_table("person_instructions")
    op.drop_column("conversations", "model")
