"""Sign-in attempts are reserved before the password is checked: one database function
counts the attempt against its account and its address, atomically on every instance, or
says how long to wait (a burst of concurrent attempts got past the old check-then-count)

Revision ID: 0055
Revises: 0054
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

from parley.sql import apply

revision: str = "0055"
down_revision: str | None = "0054"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    apply(op.execute, "signin_reserve")


def downgrade() -> None:
    op.execute(
        "DROP FUNCTION IF EXISTS parley_signin_reserve(text[], int[], double precision,"
        " double precision, interval)"
    )
