"""The chat turn's two writes as functions: one round trip each; one way to store a message

Starting a turn (claim the conversation, store the person's message, read the history) and
finishing it (store the reply, release the claim) were five and four round trips. As
PL/pgSQL functions each is one statement, atomic on its own, and every statement inside
still takes a fresh snapshot (READ COMMITTED), so a turn that waited for the previous
one's claim reads the reply that turn stored. Starting is idempotent per turn id: run
again after its reply was lost (the connection dropped), a start that committed returns
the history without storing anything twice. The rules are those of specs/chat-turn.md;
errors carry SQLSTATE PT404 (no such conversation for this user) and PT409 (a live claim
is in the way, or this turn's claim was lost).

Every message is stored by parley_append_message, the turn's functions and every other
writer alike (parley.conversations.append_message calls it): it takes the conversation's
advisory lock before the row, and so its id, exists, so ids commit in order within a
conversation and a reader resuming "after id N" can never skip one that committed late.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

APPEND = """
CREATE FUNCTION parley_append_message(
    p_conversation int, p_user text, p_role message_role, p_author text, p_kind message_kind,
    p_content text, p_tool_calls jsonb, p_error boolean, p_reply_to bigint, p_meta jsonb
) RETURNS messages AS $$
DECLARE
    v_message messages;
BEGIN
    PERFORM pg_advisory_xact_lock(1, p_conversation);
    INSERT INTO messages (conversation_id, user_id, role, author, kind, content, tool_calls,
                          error, reply_to, meta)
    VALUES (p_conversation, p_user, p_role, p_author, p_kind, p_content, p_tool_calls,
            p_error, p_reply_to, p_meta)
    RETURNING * INTO v_message;
    RETURN v_message;
END
$$ LANGUAGE plpgsql
"""

START = """
CREATE FUNCTION parley_start_turn(
    p_user text, p_conversation int, p_title text, p_turn text, p_ttl float8,
    p_content text, p_history int
) RETURNS SETOF messages AS $$
DECLARE
    v_conversation int := p_conversation;
    v_holder text;
    v_done boolean := false;  -- this turn started before: a retry after a lost reply
BEGIN
    IF v_conversation IS NULL THEN
        SELECT id INTO v_conversation FROM conversations
        WHERE user_id = p_user AND turn_id = p_turn;
        v_done := FOUND;
        IF NOT v_done THEN
            INSERT INTO conversations (user_id, mode, title, turn_id, turn_expires_at)
            VALUES (p_user, 'chat', p_title, p_turn, now() + make_interval(secs => p_ttl))
            RETURNING id INTO v_conversation;
        END IF;
    ELSE
        -- A claim is not activity: updated_at stays (the list orders by finished turns).
        UPDATE conversations
        SET turn_id = p_turn, turn_expires_at = now() + make_interval(secs => p_ttl)
        WHERE id = v_conversation AND user_id = p_user
          AND (turn_id IS NULL OR turn_expires_at < now());
        IF NOT FOUND THEN
            SELECT turn_id INTO v_holder FROM conversations
            WHERE id = v_conversation AND user_id = p_user;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'conversation not found' USING ERRCODE = 'PT404';
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
                         WHERE conversation_id = v_conversation AND role = 'user')
            ORDER BY conversation_id, id DESC LIMIT p_history;
        RETURN;
    END IF;
    -- The lock it takes also keeps anyone from writing after this message until the
    -- history is read.
    PERFORM parley_append_message(
        v_conversation, p_user, 'user', p_user, 'message', p_content, NULL, false, NULL, NULL
    );
    -- Newest first, the person's message among them; ANY keeps to the
    -- (conversation_id, id DESC) index whatever the plan.
    RETURN QUERY
        SELECT * FROM messages WHERE conversation_id = ANY (ARRAY[v_conversation])
        ORDER BY conversation_id, id DESC LIMIT p_history;
END
$$ LANGUAGE plpgsql
"""

FINISH = """
CREATE FUNCTION parley_finish_turn(
    p_user text, p_conversation int, p_turn text, p_content text, p_tool_calls jsonb,
    p_error boolean
) RETURNS SETOF messages AS $$
BEGIN
    UPDATE conversations
    SET version = version + 1, turn_id = NULL, turn_expires_at = NULL, updated_at = now()
    WHERE id = p_conversation AND turn_id = p_turn;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'claim lost' USING ERRCODE = 'PT409';
    END IF;
    RETURN NEXT parley_append_message(
        p_conversation, p_user, 'assistant', 'assistant', 'message', p_content, p_tool_calls,
        p_error, NULL, NULL
    );
END
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    op.execute(APPEND)
    op.execute(START)
    op.execute(FINISH)


def downgrade() -> None:
    op.execute("DROP FUNCTION IF EXISTS parley_finish_turn(text, int, text, text, jsonb, bool)")
    op.execute(
        "DROP FUNCTION IF EXISTS parley_start_turn(text, int, text, text, float8, text, int)"
    )
    op.execute(
        "DROP FUNCTION IF EXISTS parley_append_message(int, text, message_role, text,"
        " message_kind, text, jsonb, bool, bigint, jsonb)"
    )
