"""An account's email is verified or not: only a verified one signs in by email or lets single
sign-on join the account. Unique among verified emails only, so an address someone typed
without owning it blocks nobody.

Existing emails count as verified only where the account can be shown to have it from a
source that checked it: the invite it signed up with (the same email), or the identity
provider it is linked to (its email was the provider's verified one when it was linked or
made). Every other existing email is unverified until its person verifies it.

Revision ID: 0054
Revises: 0052
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0054"
down_revision: str | None = "0052"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "accounts", sa.Column("email_verified_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.execute(
        """UPDATE accounts a SET email_verified_at = i.used_at FROM invites i
        WHERE i.used_by = a.user_id AND i.email = a.email AND a.email IS NOT NULL"""
    )
    op.execute(
        """UPDATE accounts SET email_verified_at = created_at
        WHERE email IS NOT NULL AND oidc_subject IS NOT NULL AND email_verified_at IS NULL"""
    )
    op.drop_constraint("accounts_email_key", "accounts", type_="unique")
    op.create_index(
        "ux_accounts_verified_email",
        "accounts",
        ["email"],
        unique=True,
        postgresql_where=sa.text("email_verified_at IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ux_accounts_verified_email", table_name="accounts")
    # Back to one account per email: the verified holder (else the oldest) keeps it.
    op.execute(
        """UPDATE accounts a SET email = NULL FROM (
            SELECT user_id, row_number() OVER (PARTITION BY email
                ORDER BY email_verified_at IS NULL, created_at, user_id) AS n
            FROM accounts WHERE email IS NOT NULL) ranked
        WHERE ranked.user_id = a.user_id AND ranked.n > 1"""
    )
    op.create_unique_constraint("accounts_email_key", "accounts", ["email"])
    op.drop_column("accounts", "email_verified_at")
