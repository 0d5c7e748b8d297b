"""Typo-tolerant message search: a trigram index beside the full-text one

`pg_trgm` (shipped with PostgreSQL, and created on every node of a Citus cluster, which
propagates `CREATE EXTENSION` to its workers) gives `word <% content`: the message holds a
word much like `word` ("plumbre" finds "plumber"). The index is GIN over (user_id, content
gin_trgm_ops), `btree_gin` (migration 0046) making the owner a key of it, so a search reads
only the searching person's trigram matches. On a cluster the index is made on each shard
of `messages` like every other index of the table.

Revision ID: 0066
Revises: 0065
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0066"
down_revision: str | None = "0065"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.execute(
        "CREATE INDEX ix_messages_trigrams ON messages USING gin (user_id, content gin_trgm_ops)"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_messages_trigrams")
    # The extension stays: other objects may have come to use it.
