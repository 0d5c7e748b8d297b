"""A question can be closed without an answer

A permission question whose work session ended, or whose deferred call a newer prompt
superseded, is `closed`: nobody can answer it any more, and a plain message in its
conversation is no longer read as its answer. A run that ends closes its open questions,
whichever code path ended it (End, a crash, a sweep, a finished run): nobody waits for them.

Revision ID: 0042
Revises: 0041
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0042"
down_revision: str | None = "0041"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


CLOSE_FUNCTION = """
CREATE FUNCTION parley_close_run_questions() RETURNS trigger AS $$
BEGIN
    WITH closed AS (
        UPDATE questions SET status = 'closed', closed_at = now()
        WHERE run_id = NEW.id AND status = 'open' RETURNING message_id
    )
    UPDATE messages m SET meta = m.meta || jsonb_build_object('closed', 'closed')
    FROM closed WHERE m.id = closed.message_id AND m.meta ? 'permission';
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""

CLOSE_TRIGGER = """
CREATE TRIGGER agent_runs_close_questions AFTER UPDATE OF status ON agent_runs
    FOR EACH ROW WHEN (NEW.status IN ('completed', 'failed', 'cancelled', 'timed_out')
                       AND OLD.status IN ('running', 'waiting_input'))
    EXECUTE FUNCTION parley_close_run_questions()
"""


def upgrade() -> None:
    op.execute("ALTER TABLE questions DROP CONSTRAINT ck_questions_status")
    op.execute(
        "ALTER TABLE questions ADD CONSTRAINT ck_questions_status"
        " CHECK (status IN ('open', 'answered', 'timed_out', 'closed'))"
    )
    op.execute(CLOSE_FUNCTION)
    op.execute(CLOSE_TRIGGER)


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS agent_runs_close_questions ON agent_runs")
    op.execute("DROP FUNCTION IF EXISTS parley_close_run_questions()")
    op.execute("UPDATE questions SET status = 'timed_out' WHERE status = 'closed'")
    op.execute("ALTER TABLE questions DROP CONSTRAINT ck_questions_status")
    op.execute(
        "ALTER TABLE questions ADD CONSTRAINT ck_questions_status"
        " CHECK (status IN ('open', 'answered', 'timed_out'))"
    )
