"""Index messages.reply_to

Deleting a message makes PostgreSQL look for messages replying to it (the foreign key's
ON DELETE SET NULL); without an index that is a full scan per deleted message, so deleting
a conversation grew with the square of its size.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_messages_reply_to",
        "messages",
        ["reply_to"],
        postgresql_where=sa.text("reply_to IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_messages_reply_to", table_name="messages")
