"""Tool calls remembered by their client's call id, so a re-sent call runs once

A client whose stream broke sends the same `tools/call` again (Claude Code keeps its
`claudecode/toolUseId`; a model can pass `idempotency_key`): one row per (person, caller,
key), inserted before the call runs, so of two copies arriving at once exactly one runs; the
other gets the first one's result (or, for a wait, the same question or thread). Rows older
than a day are forgotten.

Revision ID: 0050
Revises: 0049
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0050"
down_revision: str | None = "0049"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        """CREATE TABLE mcp_calls (
            user_id VARCHAR(64) NOT NULL,
            caller VARCHAR(200) NOT NULL,
            key VARCHAR(200) NOT NULL,
            tool VARCHAR(200) NOT NULL,
            result JSONB,
            wait VARCHAR(64),
            started_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
            PRIMARY KEY (user_id, caller, key)
        )"""
    )
    op.execute("CREATE INDEX ix_mcp_calls_created_at ON mcp_calls (created_at)")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS mcp_calls")
