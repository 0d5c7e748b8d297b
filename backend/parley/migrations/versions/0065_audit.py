"""The audit trail: every decision on a person's questions and permission requests, who or
what made it, through what, and how long it waited (specs/audit.md)

A per-person table like the others: keyed by (user_id, id), distributed by user_id on a
cluster (cluster/layout.py). Rows are only ever added, and deleted when older than
PARLEY_AUDIT_DAYS.

Revision ID: 0065
Revises: 0064
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0065"
down_revision: str | None = "0064"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _one_of(column: str, values: tuple[str, ...]) -> sa.CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return sa.CheckConstraint(f"{column} IN ({listed})", name=f"ck_audit_events_{column}")


def upgrade() -> None:
    op.create_table(
        "audit_events",
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("asked", sa.Text, nullable=False, server_default=""),
        sa.Column("tool", sa.Text, nullable=True),
        sa.Column("tool_input", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("agent", sa.Text, nullable=True),
        sa.Column("machine", sa.Text, nullable=True),
        sa.Column("question_id", sa.BigInteger, nullable=True),
        sa.Column("conversation_id", sa.BigInteger, nullable=True),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=True),
        sa.Column("decided_by", sa.Text, nullable=False),
        sa.Column("decider", sa.Text, nullable=True),
        sa.Column("rule_id", sa.BigInteger, nullable=True),
        sa.Column("rule_pattern", sa.Text, nullable=True),
        sa.Column("via", sa.Text, nullable=False),
        sa.Column("device_id", sa.BigInteger, nullable=True),
        sa.Column("session_id", sa.BigInteger, nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "decided_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column("waited_ms", sa.BigInteger, nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("user_id", "id"),
        _one_of("kind", ("question", "permission")),
        _one_of("decision", ("allow", "allow_session", "deny", "answer", "timed_out", "withdrawn")),
        _one_of("decided_by", ("person", "rule", "timeout_default", "agent")),
        _one_of("via", ("web", "push_action", "email_link", "mcp", "rest", "rule", "timeout")),
        sa.CheckConstraint("waited_ms >= 0", name="ck_audit_events_waited_ms"),
    )
    # The retention sweep's search for old rows, everyone's.
    op.create_index("ix_audit_events_decided_at", "audit_events", ["decided_at"])


def downgrade() -> None:
    op.drop_index("ix_audit_events_decided_at", table_name="audit_events")
    op.drop_table("audit_events")
