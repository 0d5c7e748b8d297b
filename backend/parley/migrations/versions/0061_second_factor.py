"""An authenticator app as a second factor (TOTP, RFC 6238): one row per account holding its
secret, whether it is confirmed, the last time step a code was accepted at (no replay) and
the digests of its unused recovery codes

Revision ID: 0061
Revises: 0060
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision: str = "0061"
down_revision: str | None = "0060"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "second_factors",
        sa.Column(
            "user_id",
            sa.String(64),
            sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("secret", sa.Text, nullable=False),
        sa.Column("enabled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_step", sa.BigInteger, nullable=True),
        sa.Column("recovery_hashes", ARRAY(sa.LargeBinary), nullable=False, server_default="{}"),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
    )


def downgrade() -> None:
    op.drop_table("second_factors")
