"""OAuth for `/mcp`: registered clients, connected apps (a person's consent to one client,
acting as one agent) and the hashed access and refresh tokens issued to them

Revision ID: 0051
Revises: 0050
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0051"
down_revision: str | None = "0050"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, *, nullable: bool = True, now: bool = False) -> sa.Column:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=nullable,
        server_default=sa.func.now() if now else None,
    )


def upgrade() -> None:
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.Text, primary_key=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("info", JSONB, nullable=False),
        _ts("fetched_at", nullable=False, now=True),
    )
    op.create_table(
        "oauth_grants",
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        sa.Column(
            "user_id",
            sa.String(64),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("agent", sa.String(64), nullable=False),
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("client_name", sa.Text, nullable=False),
        _ts("created_at", nullable=False, now=True),
        _ts("last_used_at"),
    )
    op.create_index("ix_oauth_grants_user_id", "oauth_grants", ["user_id"])
    op.create_table(
        "oauth_tokens",
        sa.Column("token_hash", sa.LargeBinary, primary_key=True),
        sa.Column(
            "grant_id",
            sa.BigInteger,
            sa.ForeignKey("oauth_grants.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("resource", sa.Text, nullable=False),
        _ts("expires_at", nullable=False),
        _ts("used_at"),
    )
    op.create_index("ix_oauth_tokens_grant_id", "oauth_tokens", ["grant_id"])


def downgrade() -> None:
    for table in ("oauth_tokens", "oauth_grants", "oauth_clients"):
        op.drop_table(table)
