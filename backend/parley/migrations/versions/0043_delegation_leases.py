"""Delegation claims are leases; waits keep a run from going silent

A claim holds until the child first acts in the thread (`acked_at`); until then it is
re-delivered to its claimer (`claimer`) and, past `lease_until`, it is open to every process
again, so a claim whose answer never reached the client is not lost. `agent_runs.waiting_until`
is the end of the wait the run's agent is in: a run whose agent waits is not silent.

Threads left open behind a child run that had already ended (a run finished through
`/runs/{id}/finish` did not close its thread) are closed with the run's status, and claims
made before leases existed count as acknowledged.

Revision ID: 0043
Revises: 0042
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0043"
down_revision: str | None = "0042"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UPGRADE = (
    "ALTER TABLE delegations ADD COLUMN claimer varchar(64),"
    " ADD COLUMN lease_until timestamptz, ADD COLUMN acked_at timestamptz",
    "ALTER TABLE agent_runs ADD COLUMN waiting_until timestamptz",
    "CREATE INDEX ix_delegations_child_run_id ON delegations (child_run_id)",
    "CREATE INDEX ix_delegations_unacked ON delegations (user_id, child_agent, thread_id)"
    " WHERE status = 'claimed' AND acked_at IS NULL",
    "UPDATE delegations SET acked_at = claimed_at WHERE status = 'claimed'",
    "UPDATE questions q SET status = 'timed_out', closed_at = now() FROM delegations d"
    " JOIN agent_runs r ON r.id = d.child_run_id"
    " WHERE q.conversation_id = d.thread_id AND q.status = 'open'"
    " AND d.status IN ('pending', 'claimed')"
    " AND r.status IN ('completed', 'failed', 'cancelled', 'timed_out')",
    "UPDATE delegations d SET status = r.status::text, closed_at = coalesce(r.ended_at, now()),"
    " result = coalesce(d.result, r.summary) FROM agent_runs r"
    " WHERE r.id = d.child_run_id AND d.status IN ('pending', 'claimed')"
    " AND r.status IN ('completed', 'failed', 'cancelled', 'timed_out')",
)


def upgrade() -> None:
    for statement in UPGRADE:
        op.execute(statement)


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_delegations_unacked")
    op.execute("DROP INDEX IF EXISTS ix_delegations_child_run_id")
    op.execute("ALTER TABLE agent_runs DROP COLUMN IF EXISTS waiting_until")
    op.execute(
        "ALTER TABLE delegations DROP COLUMN IF EXISTS acked_at,"
        " DROP COLUMN IF EXISTS lease_until, DROP COLUMN IF EXISTS claimer"
    )
