"""A work session's state change is a change of its conversation in the person's stream

The UI showed a work session's status, cost and waiting permission by polling
`GET .../work`. The person's event stream already renders a work conversation with its
session state; its triggers log a `conversation updated` event whenever what that state
shows (status, cost, the pending permission request) changes, so the stream carries it and
the UI needs no poll. The function's body is `parley/sql/log_work_session.sql`. Lease
heartbeats and process ids change none of these columns: they log nothing.

Revision ID: 0048
Revises: 0047
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0048"
down_revision: str | None = "0047"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRIGGERS = [
    """CREATE CONSTRAINT TRIGGER work_sessions_log_insert AFTER INSERT ON work_sessions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION parley_log_work_session()""",
    """CREATE CONSTRAINT TRIGGER work_sessions_log_update AFTER UPDATE ON work_sessions
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.cost_usd IS DISTINCT FROM NEW.cost_usd
          OR OLD.pending IS DISTINCT FROM NEW.pending)
    EXECUTE FUNCTION parley_log_work_session()""",
]


def upgrade() -> None:
    sql.apply(op.execute, "log_work_session")
    for statement in TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS work_sessions_log_insert ON work_sessions")
    op.execute("DROP TRIGGER IF EXISTS work_sessions_log_update ON work_sessions")
    op.execute("DROP FUNCTION IF EXISTS parley_log_work_session()")
