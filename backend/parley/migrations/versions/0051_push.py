"""Web Push: devices, preferences, mutes, the push outbox, and what a question does when
nobody answers

Every push is an outbox row per (event, device), written by triggers in the transaction that
writes the event itself (a question opened or closed, a run that failed, an agent's message
in the inbox): whichever path stores a question, its notifications cannot be missed, and
`UNIQUE (subscription_id, kind, ref)` makes a second one for the same device impossible.
Senders on every instance claim rows with `FOR UPDATE SKIP LOCKED` (parley.push.outbox).

Revision ID: 0051
Revises: 0046
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0051"
down_revision: str | None = "0046"
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


FUNCTIONS = (
    """
-- One outbox row per device of the person, unless they turned this kind off or muted the
-- conversation. Questions and run failures notify unless turned off; messages only if on.
CREATE FUNCTION parley_push_enqueue(p_user text, p_kind text, p_ref bigint, p_conversation int)
RETURNS void AS $$
BEGIN
    IF p_conversation IS NOT NULL AND EXISTS (
        SELECT 1 FROM conversation_mutes WHERE conversation_id = p_conversation
    ) THEN
        RETURN;
    END IF;
    IF NOT coalesce((SELECT CASE WHEN p_kind IN ('question', 'reminder') THEN question
                                 WHEN p_kind = 'run_failed' THEN run_failed
                                        ELSE message END
                     FROM notification_prefs WHERE user_id = p_user), p_kind <> 'message') THEN
        RETURN;
    END IF;
    INSERT INTO push_outbox (subscription_id, user_id, kind, ref, conversation_id)
    SELECT id, p_user, p_kind, p_ref, p_conversation FROM push_subscriptions
    WHERE user_id = p_user
    ON CONFLICT DO NOTHING;
END
$$ LANGUAGE plpgsql
""",
    """
CREATE FUNCTION parley_push_question() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM parley_push_enqueue(NEW.user_id, 'question', NEW.message_id, NEW.conversation_id);
        RETURN NULL;
    END IF;
    -- Closed before its push left: nothing was shown, nothing to replace.
    DELETE FROM push_outbox
    WHERE ref = NEW.message_id AND kind IN ('question', 'reminder') AND status = 'pending'
      AND attempts = 0 AND (lease_until IS NULL OR lease_until < now());
    -- Every device that was (or is being) shown it gets the closing push, same tag.
    INSERT INTO push_outbox (subscription_id, user_id, kind, ref, conversation_id)
    SELECT DISTINCT subscription_id, user_id, 'question_closed', ref, conversation_id
    FROM push_outbox WHERE ref = NEW.message_id AND kind IN ('question', 'reminder')
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
""",
    """
CREATE FUNCTION parley_push_run() RETURNS trigger AS $$
BEGIN
    PERFORM parley_push_enqueue(NEW.user_id, 'run_failed', NEW.id, NEW.conversation_id);
    RETURN NULL;
END
$$ LANGUAGE plpgsql
""",
    """
CREATE FUNCTION parley_push_message() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM conversations WHERE id = NEW.conversation_id AND mode = 'inbox') THEN
        PERFORM parley_push_enqueue(NEW.user_id, 'message', NEW.id, NEW.conversation_id);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
""",
    """
CREATE TRIGGER questions_push_insert AFTER INSERT ON questions
    FOR EACH ROW EXECUTE FUNCTION parley_push_question()
""",
    """
CREATE TRIGGER questions_push_close AFTER UPDATE OF status ON questions
    FOR EACH ROW WHEN (OLD.status = 'open' AND NEW.status <> 'open')
    EXECUTE FUNCTION parley_push_question()
""",
    """
CREATE TRIGGER agent_runs_push_failed AFTER UPDATE OF status ON agent_runs
    FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status <> 'failed')
    EXECUTE FUNCTION parley_push_run()
""",
    """
CREATE TRIGGER messages_push AFTER INSERT ON messages
    FOR EACH ROW WHEN (NEW.role = 'agent' AND NEW.kind = 'message')
    EXECUTE FUNCTION parley_push_message()
""",
)

DROP_FUNCTIONS = (
    "DROP TRIGGER IF EXISTS messages_push ON messages",
    "DROP TRIGGER IF EXISTS agent_runs_push_failed ON agent_runs",
    "DROP TRIGGER IF EXISTS questions_push_close ON questions",
    "DROP TRIGGER IF EXISTS questions_push_insert ON questions",
    "DROP FUNCTION IF EXISTS parley_push_message()",
    "DROP FUNCTION IF EXISTS parley_push_run()",
    "DROP FUNCTION IF EXISTS parley_push_question()",
    "DROP FUNCTION IF EXISTS parley_push_enqueue(text, text, bigint, int)",
)


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        _id(),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("p256dh", sa.Text, nullable=False),
        sa.Column("auth", sa.Text, nullable=False),
        sa.Column("label", sa.Text, nullable=False, server_default=""),
        _ts("created_at", nullable=False, now=True),
        _ts("last_sent_at"),
        sa.UniqueConstraint("user_id", "endpoint", name="uq_push_subscriptions_endpoint"),
    )
    op.create_table(
        "notification_prefs",
        sa.Column("user_id", sa.String(64), primary_key=True),
        sa.Column("question", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("run_failed", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("message", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("email_reminders", sa.Boolean, nullable=False, server_default=sa.true()),
    )
    op.create_table(
        "conversation_mutes",
        sa.Column(
            "conversation_id",
            sa.Integer,
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("user_id", sa.String(64), nullable=False),
        _ts("created_at", nullable=False, now=True),
    )
    op.create_table(
        "push_outbox",
        _id(),
        sa.Column(
            "subscription_id",
            sa.BigInteger,
            sa.ForeignKey("push_subscriptions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("ref", sa.BigInteger, nullable=False),
        sa.Column("conversation_id", sa.Integer, nullable=True),
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        _ts("next_at", nullable=False, now=True),
        _ts("lease_until"),
        _ts("created_at", nullable=False, now=True),
        _ts("sent_at"),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.UniqueConstraint("subscription_id", "kind", "ref", name="uq_push_outbox_once"),
        sa.CheckConstraint(
            "kind IN ('question', 'reminder', 'question_closed', 'run_failed', 'message')",
            name="ck_push_outbox_kind",
        ),
        sa.CheckConstraint("status IN ('pending', 'sent', 'failed')", name="ck_push_outbox_status"),
    )
    op.create_index(
        "ix_push_outbox_due",
        "push_outbox",
        ["next_at"],
        postgresql_where=sa.text("status = 'pending'"),
    )
    op.create_index("ix_push_outbox_ref", "push_outbox", ["ref", "kind"])
    op.create_table(
        "question_escalations",
        sa.Column(
            "question_id",
            sa.BigInteger,
            sa.ForeignKey("questions.message_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("on_timeout", sa.Text, nullable=False, server_default="expire"),
        sa.Column("remind_after", sa.Float, nullable=True),
        # 0: nothing sent yet, 1: the reminder push, 2: the email too.
        sa.Column("stage", sa.SmallInteger, nullable=False, server_default="0"),
        _ts("next_at"),
        sa.CheckConstraint(
            "on_timeout IN ('expire', 'deny', 'allow')", name="ck_question_escalations_on_timeout"
        ),
    )
    op.create_index(
        "ix_question_escalations_due",
        "question_escalations",
        ["next_at"],
        postgresql_where=sa.text("next_at IS NOT NULL"),
    )
    op.create_table(
        "push_vapid",
        sa.Column("id", sa.SmallInteger, primary_key=True),
        sa.Column("private_pem", sa.Text, nullable=False),
        _ts("created_at", nullable=False, now=True),
    )
    for statement in FUNCTIONS:
        op.execute(statement)


def downgrade() -> None:
    for statement in DROP_FUNCTIONS:
        op.execute(statement)
    for table in (
        "push_vapid",
        "question_escalations",
        "push_outbox",
        "conversation_mutes",
        "notification_prefs",
        "push_subscriptions",
    ):
        op.drop_table(table)
