"""Short claims and the turn's in-flight record of tool calls

`turn_tool_calls` holds each tool call of a running turn as it happens: a row before the
call (fenced: only while the turn still holds its claim), its result after. A turn that dies
leaves them behind; `parley_turn_abandoned` (parley/sql/turn_abandoned.sql), a trigger on
the claim, turns them into the dead turn's reply when its claim is taken over or swept, and
a retry of that turn answers a recorded call from the record instead of running it again.
The partial index lets each instance sweep expired claims cheaply.

Revision ID: 0030
Revises: 0020
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from parley import sql

revision: str = "0030"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "turn_tool_calls",
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        sa.Column(
            "conversation_id",
            sa.Integer,
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("turn_id", sa.String(length=64), nullable=False),
        # The person's message the turn answers: a retry answers the same one.
        sa.Column("prompt_id", sa.BigInteger, nullable=False),
        sa.Column("tool", sa.String(length=200), nullable=False),
        sa.Column("parameters", JSONB, nullable=False),
        sa.Column("result", JSONB, nullable=True),  # NULL while the call runs
        # Answered from this earlier record (a retry) instead of running again.
        sa.Column("replay_of", sa.BigInteger, nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
    )
    op.create_index("ix_turn_tool_calls_turn_id", "turn_tool_calls", ["turn_id"])
    op.create_index(
        "ix_turn_tool_calls_conversation_prompt",
        "turn_tool_calls",
        ["conversation_id", "prompt_id"],
    )
    op.create_index(
        "ix_conversations_claim_expiry",
        "conversations",
        ["turn_expires_at"],
        postgresql_where=sa.text("turn_id IS NOT NULL"),
    )
    sql.apply(op.execute, "turn_abandoned")
    op.execute(
        "CREATE TRIGGER conversations_turn_abandoned BEFORE UPDATE OF turn_id ON conversations"
        " FOR EACH ROW EXECUTE FUNCTION parley_turn_abandoned()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS conversations_turn_abandoned ON conversations")
    op.execute("DROP FUNCTION IF EXISTS parley_turn_abandoned()")
    op.drop_index("ix_conversations_claim_expiry", table_name="conversations")
    op.drop_table("turn_tool_calls")
