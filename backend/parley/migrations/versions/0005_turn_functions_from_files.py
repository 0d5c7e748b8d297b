"""The turn's functions from their .sql files, with role, mode and kind as parameters

parley_start_turn and parley_finish_turn take the conversation mode, the message role and
kind they write as arguments (no more 'chat', 'user', 'assistant' inside them), so another
kind of turn needs no new function; a start with no content retries the last failed turn.
Their bodies now live in parley/sql/*.sql.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from alembic import op

from parley import sql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_START = "parley_start_turn(text, int, text, text, float8, text, int)"
OLD_FINISH = "parley_finish_turn(text, int, text, text, jsonb, bool)"
NEW_START = (
    "parley_start_turn(text, int, conversation_mode, text, text, float8, message_role, text, int)"
)
NEW_FINISH = (
    "parley_finish_turn(text, int, text, message_role, text, message_kind, text, jsonb, bool,"
    " jsonb)"
)


def upgrade() -> None:
    op.execute(f"DROP FUNCTION IF EXISTS {OLD_START}")
    op.execute(f"DROP FUNCTION IF EXISTS {OLD_FINISH}")
    sql.apply(op.execute, "append_message", "start_turn", "finish_turn")


# The file's body since 0067 (a branch to start from): what `upgrade` made from it, and what
# 0060's downgrade makes from it again, with int conversation ids.
BRANCHING_START = (
    "parley_start_turn(text, int, conversation_mode, text, text, float8, message_role, text,"
    " int, bigint)"
)


def downgrade() -> None:
    op.execute(f"DROP FUNCTION IF EXISTS {NEW_START}")
    op.execute(f"DROP FUNCTION IF EXISTS {BRANCHING_START}")
    op.execute(f"DROP FUNCTION IF EXISTS {NEW_FINISH}")
    # Revision 0004's own bodies, as it created them.
    path = Path(__file__).with_name("0004_turn_functions.py")
    spec = importlib.util.spec_from_file_location("parley_migration_0004", path)
    assert spec is not None and spec.loader is not None
    previous = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(previous)
    op.execute(previous.START)
    op.execute(previous.FINISH)
