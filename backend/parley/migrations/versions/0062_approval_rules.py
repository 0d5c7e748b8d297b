"""A person's approval rules: allow, deny or ask, in Claude Code's rule syntax, for every
agent, one agent or one machine, each with what a timeout decides (specs/approvals.md)

A per-person table like the others: keyed by (user_id, id), distributed by user_id on a
cluster (cluster/layout.py).

Revision ID: 0062
Revises: 0061
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0062"
down_revision: str | None = "0061"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _one_of(column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=f"ck_approval_rules_{column}")


def upgrade() -> None:
    op.create_table(
        "approval_rules",
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), nullable=False),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("pattern", sa.Text, nullable=False),
        sa.Column("scope", sa.Text, nullable=False, server_default="all"),
        sa.Column("scope_value", sa.Text, nullable=False, server_default=""),
        sa.Column("on_timeout", sa.Text, nullable=False, server_default="deny"),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.Column("source", sa.Text, nullable=False, server_default="hand"),
        sa.Column("question_id", sa.BigInteger, nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("user_id", "id"),
        sa.UniqueConstraint(
            "user_id", "pattern", "scope", "scope_value", name="uq_approval_rules_pattern"
        ),
        _one_of("decision", ("allow", "deny", "ask")),
        _one_of("scope", ("all", "agent", "machine")),
        _one_of("on_timeout", ("allow", "deny")),
        _one_of("source", ("hand", "always")),
    )


def downgrade() -> None:
    op.drop_table("approval_rules")
