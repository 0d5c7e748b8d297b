"""A turn's claim no longer checks the conversation's mode

The conversation modes (`parley.modes`) decide which writes each kind of conversation takes,
and a request is routed by its conversation's mode before any statement runs, so a work
prompt no longer makes a claim that fails with PT415 first. `parley_start_turn` now checks
only what makes a conversation writable for a turn: it is the person's and no live claim
holds it (0040 added the mode check; this takes it out again).

Revision ID: 0047
Revises: 0046
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0047"
down_revision: str | None = "0046"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The function as 0040 left it: a conversation of another mode raised PT415.
START_TURN_CHECKING_MODE = """
CREATE OR REPLACE FUNCTION parley_start_turn(
    p_user text, p_conversation int, p_mode conversation_mode, p_title text, p_turn text,
    p_ttl float8, p_role message_role, p_content text, p_history int
) RETURNS SETOF messages AS $$
DECLARE
    v_conversation int := p_conversation;
    v_holder text;
    v_mode conversation_mode;
    v_done boolean := false;  -- this turn started before: a repeat after a lost answer
BEGIN
    IF v_conversation IS NULL THEN
        SELECT id INTO v_conversation FROM conversations
        WHERE user_id = p_user AND turn_id = p_turn;
        v_done := FOUND;
        IF NOT v_done THEN
            INSERT INTO conversations (user_id, mode, title, turn_id, turn_expires_at)
            VALUES (p_user, p_mode, p_title, p_turn, now() + make_interval(secs => p_ttl))
            RETURNING id INTO v_conversation;
        END IF;
    ELSE
        -- A claim is not activity: updated_at stays (the list orders by finished turns).
        UPDATE conversations
        SET turn_id = p_turn, turn_expires_at = now() + make_interval(secs => p_ttl)
        WHERE id = v_conversation AND user_id = p_user AND mode = p_mode
          AND (turn_id IS NULL OR turn_expires_at < now());
        IF NOT FOUND THEN
            SELECT turn_id, mode INTO v_holder, v_mode FROM conversations
            WHERE id = v_conversation AND user_id = p_user;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'conversation not found' USING ERRCODE = 'PT404';
            END IF;
            IF v_mode <> p_mode THEN
                RAISE EXCEPTION 'not a % conversation', p_mode
                    USING ERRCODE = 'PT415', DETAIL = v_mode::text;
            END IF;
            IF v_holder IS DISTINCT FROM p_turn THEN
                RAISE EXCEPTION 'turn in progress' USING ERRCODE = 'PT409';
            END IF;
            v_done := true;
        END IF;
    END IF;
    IF v_done THEN
        -- Others (agents) may have written since: the history still ends at this turn's
        -- message, the newest from the person (nobody else's turn can start meanwhile).
        RETURN QUERY
            SELECT * FROM messages WHERE conversation_id = ANY (ARRAY[v_conversation])
              AND id <= (SELECT max(id) FROM messages
                         WHERE conversation_id = v_conversation AND role = p_role)
            ORDER BY conversation_id, id DESC LIMIT p_history;
        RETURN;
    END IF;
    IF p_content IS NULL THEN
        IF NOT coalesce((SELECT error FROM messages WHERE conversation_id = v_conversation
                         ORDER BY id DESC LIMIT 1), false) THEN
            RAISE EXCEPTION 'nothing to retry' USING ERRCODE = 'PT422';
        END IF;
    ELSE
        -- The lock it takes also keeps anyone from writing after this message until the
        -- history is read.
        PERFORM parley_append_message(
            v_conversation, p_user, p_role, p_user, 'message', p_content, NULL, false, NULL, NULL
        );
    END IF;
    -- Newest first; ANY keeps to the (conversation_id, id DESC) index whatever the plan.
    RETURN QUERY
        SELECT * FROM messages WHERE conversation_id = ANY (ARRAY[v_conversation])
        ORDER BY conversation_id, id DESC LIMIT p_history;
END
$$ LANGUAGE plpgsql;
"""


def upgrade() -> None:
    sql.apply(op.execute, "start_turn")


def downgrade() -> None:
    op.execute(START_TURN_CHECKING_MODE)
