"""Device authorization (RFC 8628): `parley connect` asks for a code the person approves in
the signed-in web UI; the program polls with the device code until then (specs/accounts.md).

Both codes are kept as SHA-256 digests only. Looked up by a digest (the person is not known
until a code is found), so the table stays on the coordinator of a cluster (cluster/layout.py).

Revision ID: 0064
Revises: 0063
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0064"
down_revision: str | None = "0063"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "device_codes",
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        sa.Column("device_hash", sa.LargeBinary, nullable=False, unique=True),
        sa.Column("user_code_hash", sa.LargeBinary, nullable=False, unique=True),
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("application", sa.Text, nullable=False),
        sa.Column("machine", sa.Text, nullable=False),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("interval_seconds", sa.Integer, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("polled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'approved', 'denied', 'redeemed')",
            name="ck_device_codes_status",
        ),
        sa.CheckConstraint(
            "(status = 'pending') = (user_id IS NULL)",
            name="ck_device_codes_person",
        ),
    )
    op.create_index("ix_device_codes_address", "device_codes", ["address"])
    op.create_index("ix_device_codes_expires_at", "device_codes", ["expires_at"])


def downgrade() -> None:
    op.drop_table("device_codes")
