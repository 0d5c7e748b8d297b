"""Full-text search over messages

A GIN index over (user_id, to_tsvector('simple', content)): `btree_gin` lets the owner be a
key of the same index, so a search touches only the searching person's matches. The
'simple' configuration (no stemming, no stop words) finds words in any language as written.
And (user_id, id DESC): a person's newest messages, which search reads first, since a word
they use often is found among them without fetching all its older matches.

Revision ID: 0046
Revises: 0045
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0046"
down_revision: str | None = "0045"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
    op.execute(
        "CREATE INDEX ix_messages_search ON messages"
        " USING gin (user_id, to_tsvector('simple'::regconfig, content))"
    )
    op.create_index("ix_messages_user_id_id", "messages", ["user_id", sa.text("id DESC")])


def downgrade() -> None:
    op.drop_index("ix_messages_user_id_id", table_name="messages")
    op.execute("DROP INDEX IF EXISTS ix_messages_search")
    # The extension stays: other objects may have come to use it.
