"""Work sessions run sandboxed: each person's own host uid, and the model tokens each person's
sessions used (counted by the model relay)

`work_uids`: a uid per person, allocated once from PARLEY_WORK_UID_MIN..MAX when the server
runs as root, never reused (files in a workspace keep it). `work_usage`: per person and
conversation, the Messages API usage the relay read from each response; kept when the
conversation is deleted.

Revision ID: 0053
Revises: 0055
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0053"
down_revision: str | None = "0055"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """CREATE TABLE work_uids (
            user_id VARCHAR(64) PRIMARY KEY,
            uid INTEGER NOT NULL,
            created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            CONSTRAINT uq_work_uids_uid UNIQUE (uid)
        )"""
    )
    op.execute(
        """CREATE TABLE work_usage (
            user_id VARCHAR(64) NOT NULL,
            conversation_id INTEGER NOT NULL,
            input_tokens BIGINT NOT NULL DEFAULT 0,
            output_tokens BIGINT NOT NULL DEFAULT 0,
            cache_creation_input_tokens BIGINT NOT NULL DEFAULT 0,
            cache_read_input_tokens BIGINT NOT NULL DEFAULT 0,
            requests INTEGER NOT NULL DEFAULT 0,
            updated_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            PRIMARY KEY (user_id, conversation_id)
        )"""
    )


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS work_usage")
    op.execute("DROP TABLE IF EXISTS work_uids")
