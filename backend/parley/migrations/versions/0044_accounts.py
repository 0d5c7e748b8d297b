"""Accounts and credentials: people's accounts, web sessions, agent keys, invites, passkeys,
sign-in ceremonies in flight and failed-sign-in counters

No data moves: an account claims the `user_id` the other tables are already keyed by.

Revision ID: 0044
Revises: 0043
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0044"
down_revision: str | None = "0043"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, *, nullable: bool = True, now: bool = False) -> sa.Column:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=nullable,
        server_default=sa.func.now() if now else None,
    )


def _id() -> sa.Column:
    return sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True)


def _owner() -> sa.Column:
    return sa.Column(
        "user_id",
        sa.String(64),
        sa.ForeignKey("accounts.user_id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("email", sa.Text, nullable=True, unique=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
        _ts("disabled_at"),
        _ts("tokens_revoked_at"),
        sa.Column("oidc_subject", sa.Text, nullable=True, unique=True),
        _ts("created_at", nullable=False, now=True),
    )
    op.create_table(
        "web_sessions",
        _id(),
        sa.Column("token_hash", sa.LargeBinary, nullable=False, unique=True),
        _owner(),
        sa.Column("device", sa.Text, nullable=False, server_default=""),
        _ts("created_at", nullable=False, now=True),
        _ts("last_seen_at", nullable=False, now=True),
        _ts("expires_at", nullable=False),
    )
    op.create_index("ix_web_sessions_user_id", "web_sessions", ["user_id"])
    op.create_table(
        "agent_keys",
        _id(),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("agent", sa.String(64), nullable=False),
        sa.Column("prefix", sa.Text, nullable=False),
        sa.Column("secret_hash", sa.LargeBinary, nullable=False, unique=True),
        _ts("created_at", nullable=False, now=True),
        _ts("expires_at"),
        _ts("last_used_at"),
    )
    op.create_index("ix_agent_keys_user_id", "agent_keys", ["user_id"])
    op.create_table(
        "invites",
        _id(),
        sa.Column("token_hash", sa.LargeBinary, nullable=False, unique=True),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("is_admin", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_by", sa.String(64), nullable=True),
        _ts("created_at", nullable=False, now=True),
        _ts("expires_at", nullable=False),
        _ts("used_at"),
        sa.Column("used_by", sa.String(64), nullable=True),
    )
    op.create_table(
        "passkeys",
        _id(),
        _owner(),
        sa.Column("credential_id", sa.LargeBinary, nullable=False, unique=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("transports", JSONB, nullable=False, server_default="[]"),
        sa.Column("name", sa.Text, nullable=False, server_default=""),
        _ts("created_at", nullable=False, now=True),
        _ts("last_used_at"),
    )
    op.create_index("ix_passkeys_user_id", "passkeys", ["user_id"])
    op.create_table(
        "auth_challenges",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("user_id", sa.String(64), nullable=True),
        sa.Column("data", JSONB, nullable=False),
        _ts("expires_at", nullable=False),
    )
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        _ts("last_failure_at", nullable=False, now=True),
        _ts("locked_until"),
    )


def downgrade() -> None:
    for table in (
        "login_throttle",
        "auth_challenges",
        "passkeys",
        "invites",
        "agent_keys",
        "web_sessions",
        "accounts",
    ):
        op.drop_table(table)
