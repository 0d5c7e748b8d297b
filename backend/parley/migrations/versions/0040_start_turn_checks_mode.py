"""A turn's claim checks the conversation's mode

`parley_start_turn` claims only a conversation of the mode asked for and otherwise raises
PT415 with the conversation's mode, so `POST /chat` learns from the claim itself whether the
conversation is a work session (or an inbox, run or thread, which take no assistant turn),
without a statement to read it first.

Revision ID: 0040
Revises: 0030
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0040"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    sql.apply(op.execute, "start_turn")


def downgrade() -> None:
    """The function as 0030 left it is the same but for the mode check, which is harmless to
    keep: nothing to undo."""
