"""Attachments: files a person drops into the composer, kept in PostgreSQL until the
conversation they were sent to is deleted (specs/attachments.md)

A per-person table like the others: keyed by (user_id, id), distributed by user_id on a
cluster (cluster/layout.py). An attachment is uploaded first (no conversation yet) and is
sent with at most one message; its conversation and message are set then.

Revision ID: 0069
Revises: 0068
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0069"
down_revision: str | None = "0068"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "attachments",
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("content_type", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("conversation_id", sa.BigInteger, nullable=True),
        sa.Column("message_id", sa.BigInteger, nullable=True),
        sa.Column("turn_id", sa.Text, nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("user_id", "id"),
        sa.ForeignKeyConstraint(
            ["user_id", "conversation_id"],
            ["conversations.user_id", "conversations.id"],
            ondelete="CASCADE",
            name="attachments_conversation_id_fkey",
        ),
        sa.ForeignKeyConstraint(
            ["user_id", "message_id"],
            ["messages.user_id", "messages.id"],
            ondelete="CASCADE",
            name="attachments_message_id_fkey",
        ),
        sa.CheckConstraint("kind IN ('text', 'image')", name="ck_attachments_kind"),
        sa.CheckConstraint("size >= 0 AND size = length(data)", name="ck_attachments_size"),
        sa.CheckConstraint("length(name) BETWEEN 1 AND 255", name="ck_attachments_name"),
    )
    # A message's attachments, read with every history reload.
    op.create_index(
        "ix_attachments_message",
        "attachments",
        ["user_id", "message_id"],
        postgresql_where=sa.text("message_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_attachments_message", table_name="attachments")
    op.drop_table("attachments")
