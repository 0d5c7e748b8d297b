"""Branches in place: a conversation's messages are a tree (`parent_id`), one path of it
shown (`shown`); editing a message or regenerating a reply adds a sibling on a new branch in
the same conversation instead of copying it into a new one (specs/chat.md, *Branches*).

Older messages become one chain, each following the one before it in its conversation, all
shown: every conversation reads as it did. The indexes the reads walk stay as they are (the
shown flag is a filter on them); `ix_messages_parent` serves a switch walking down a branch.

Revision ID: 0067
Revises: 0066
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

from parley import sql

revision: str = "0067"
down_revision: str | None = "0066"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_START = (
    "parley_start_turn(text, bigint, conversation_mode, text, text, float8, message_role,"
    " text, int)"
)
NEW_START = (
    "parley_start_turn(text, bigint, conversation_mode, text, text, float8, message_role,"
    " text, int, bigint)"
)
# The window and the join both keep to one person: on a cluster each node does its own.
CHAIN = """
UPDATE messages m SET parent_id = p.before
FROM (
    SELECT user_id, id,
           lag(id) OVER (PARTITION BY user_id, conversation_id ORDER BY id) AS before
    FROM messages
) p
WHERE m.user_id = p.user_id AND m.id = p.id AND p.before IS NOT NULL
"""


def upgrade() -> None:
    op.execute("ALTER TABLE messages ADD COLUMN parent_id bigint")
    op.execute("ALTER TABLE messages ADD COLUMN shown boolean DEFAULT true NOT NULL")
    op.execute(CHAIN)
    op.execute("CREATE INDEX ix_messages_parent ON messages (user_id, conversation_id, parent_id)")
    op.execute(f"DROP FUNCTION IF EXISTS {OLD_START}")
    sql.apply(op.execute, "append_message", "start_turn", "show_branch")


def downgrade() -> None:
    op.execute("DROP FUNCTION IF EXISTS parley_show_branch(text, bigint, bigint)")
    op.execute(f"DROP FUNCTION IF EXISTS {NEW_START}")
    op.execute(OLD_START_BODY)
    op.execute(OLD_APPEND_BODY)
    op.execute("DROP INDEX IF EXISTS ix_messages_parent")
    op.execute("ALTER TABLE messages DROP COLUMN IF EXISTS shown")
    op.execute("ALTER TABLE messages DROP COLUMN IF EXISTS parent_id")


# The bodies before this revision (parley/sql/start_turn.sql, append_message.sql at 0065).
OLD_START_BODY = r"""
-- Start a turn: claim the conversation (a new one of mode p_mode when p_conversation is
-- NULL), store the person's message as role p_role, and return the last p_history
-- messages, newest first. One statement, so a refusal or failure leaves nothing behind.
--
-- p_content NULL retries the conversation's last turn instead: nothing is stored, and the
-- newest message must be a failed reply (else SQLSTATE PT422).
-- Safe to repeat with the same p_turn (the connection dropped before the answer came): a
-- start that committed returns the history without storing anything twice.
-- Errors: PT404 no such conversation for this user; PT409 a live claim is in the way.
-- Which conversations take a turn is not this function's to say: the caller's mode
-- (parley.modes) sends only its own conversations here; p_mode is the new one's mode.
CREATE OR REPLACE FUNCTION parley_start_turn(
    p_user text, p_conversation bigint, p_mode conversation_mode, p_title text, p_turn text,
    p_ttl float8, p_role message_role, p_content text, p_history int
) RETURNS SETOF messages AS $$
DECLARE
    v_conversation bigint := p_conversation;
    v_holder text;
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
            SELECT * FROM messages
            WHERE user_id = p_user AND conversation_id = ANY (ARRAY[v_conversation])
              AND id <= (SELECT id FROM messages WHERE user_id = p_user
                         AND conversation_id = ANY (ARRAY[v_conversation]) AND role = p_role
                         ORDER BY conversation_id, id DESC LIMIT 1)
            ORDER BY conversation_id, id DESC LIMIT p_history;
        RETURN;
    END IF;
    IF p_content IS NULL THEN
        IF NOT coalesce((SELECT error FROM messages WHERE user_id = p_user
                         AND conversation_id = ANY (ARRAY[v_conversation])
                         ORDER BY conversation_id, id DESC LIMIT 1), false) THEN
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
        SELECT * FROM messages
        WHERE user_id = p_user AND conversation_id = ANY (ARRAY[v_conversation])
        ORDER BY conversation_id, id DESC LIMIT p_history;
END
$$ LANGUAGE plpgsql;
"""
OLD_APPEND_BODY = r"""
-- The one way a message is stored, by the turn's functions and every other writer alike.
-- It takes the conversation's advisory lock before the row (and so its id) exists, so ids
-- commit in order within a conversation and a reader resuming "after id N" can never skip
-- one that committed late. The id is past the conversation's newest too: on a Citus cluster
-- each node draws ids from its own range, and a person whose shard moved to a node with a
-- lower range would otherwise get ids below those they already have (specs/scale.md).
CREATE OR REPLACE FUNCTION parley_append_message(
    p_conversation bigint, p_user text, p_role message_role, p_author text, p_kind message_kind,
    p_content text, p_tool_calls jsonb, p_error boolean, p_reply_to bigint, p_meta jsonb
) RETURNS messages AS $$
DECLARE
    v_message messages;
    v_id bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1, hashint8(p_conversation));
    SELECT id + 1 INTO v_id FROM messages
    WHERE user_id = p_user AND conversation_id = ANY (ARRAY[p_conversation])
    ORDER BY conversation_id, id DESC LIMIT 1;
    INSERT INTO messages (id, conversation_id, user_id, role, author, kind, content, tool_calls,
                          error, reply_to, meta)
    VALUES (greatest(nextval('messages_id_seq'), v_id), p_conversation, p_user, p_role,
            p_author, p_kind, p_content, p_tool_calls, p_error, p_reply_to, p_meta)
    RETURNING * INTO v_message;
    RETURN v_message;
END
$$ LANGUAGE plpgsql;
"""
