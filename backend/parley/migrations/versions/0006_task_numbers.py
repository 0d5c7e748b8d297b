"""Per-user task numbers: each person's tasks are numbered 1, 2, 3... on their own

People and models see a task's `number`, never the table's global id (which would leak how
many tasks everyone else has). Numbers come from a per-user counter and are never reused,
so "task 3" keeps meaning the same task after task 2 is deleted. Existing tasks are numbered
in the order they were created.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("number", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE tasks t SET number = n.number FROM (SELECT id, row_number() OVER"
        " (PARTITION BY user_id ORDER BY id) AS number FROM tasks) n WHERE t.id = n.id"
    )
    op.alter_column("tasks", "number", nullable=False)
    op.drop_index("ix_tasks_user_id_id", table_name="tasks")
    op.create_index("uq_tasks_user_id_number", "tasks", ["user_id", "number"], unique=True)
    op.create_table(
        "task_counters",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("last_number", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.execute(
        "INSERT INTO task_counters (user_id, last_number)"
        " SELECT user_id, max(number) FROM tasks GROUP BY user_id"
    )


def downgrade() -> None:
    op.drop_table("task_counters")
    op.drop_index("uq_tasks_user_id_number", table_name="tasks")
    op.create_index("ix_tasks_user_id_id", "tasks", ["user_id", "id"], unique=False)
    op.drop_column("tasks", "number")
