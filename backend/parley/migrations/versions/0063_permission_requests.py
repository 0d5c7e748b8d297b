"""Permission requests from Claude Code running outside Parley (its PreToolUse hook, its
permission-prompt tool): one row per agent and Claude Code tool call id, naming the question
that asks the person, so a hook run again for the same call re-attaches to that question
instead of asking twice (specs/claude-code-anywhere.md)

A per-person table like the others: keyed by (user_id, agent, tool_use_id), distributed by
user_id on a cluster (cluster/layout.py).

Revision ID: 0063
Revises: 0062
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0063"
down_revision: str | None = "0062"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "permission_requests",
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("agent", sa.Text, nullable=False),
        sa.Column("tool_use_id", sa.Text, nullable=False),
        # Set in the transaction that claims the row; NULL never commits.
        sa.Column("question_id", sa.BigInteger, nullable=True),
        sa.Column("tool_name", sa.Text, nullable=False),
        sa.Column("machine", sa.Text, nullable=False, server_default=""),
        sa.Column("session_id", sa.Text, nullable=False, server_default=""),
        sa.Column("cwd", sa.Text, nullable=False, server_default=""),
        sa.Column("rule_id", sa.BigInteger, nullable=True),  # the ask rule that asked, if one
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("user_id", "agent", "tool_use_id"),
    )
    op.create_index(
        "ix_permission_requests_question", "permission_requests", ["user_id", "question_id"]
    )


def downgrade() -> None:
    op.drop_table("permission_requests")
