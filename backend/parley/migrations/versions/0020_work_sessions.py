"""Work sessions: the state of a conversation's Claude Code process that must outlive it

A pending permission request (the deferred tool call, its question and the Claude Code
session id) lives here, so an answer given after a restart can still be applied.

Revision ID: 0020
Revises: 0010
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0020"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "work_sessions",
        sa.Column(
            "conversation_id",
            sa.Integer,
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column(
            "run_id", sa.Integer, sa.ForeignKey("agent_runs.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("session_id", sa.Text, nullable=True),
        sa.Column("workspace", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="starting"),
        sa.Column("cost_usd", sa.Float, nullable=False, server_default="0"),
        sa.Column("allowed_tools", JSONB, nullable=False, server_default="[]"),
        sa.Column("pending", JSONB, nullable=True),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
    )
    op.create_index("ix_work_sessions_user_id", "work_sessions", ["user_id"])


def downgrade() -> None:
    op.drop_table("work_sessions")
