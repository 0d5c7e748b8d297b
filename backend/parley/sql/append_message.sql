-- The one way a message is stored, by the turn's functions and every other writer alike.
-- It takes the conversation's advisory lock before the row (and so its id) exists, so ids
-- commit in order within a conversation and a reader resuming "after id N" can never skip
-- one that committed late. The id is past the conversation's newest too: on a Citus cluster
-- each node draws ids from its own range, and a person whose shard moved to a node with a
-- lower range would otherwise get ids below those they already have (specs/scale.md).
-- The message follows the newest shown one (its parent): the shown messages are one path,
-- and a new message continues the branch the conversation shows (migration 0067).
CREATE OR REPLACE FUNCTION parley_append_message(
    p_conversation bigint, p_user text, p_role message_role, p_author text, p_kind message_kind,
    p_content text, p_tool_calls jsonb, p_error boolean, p_reply_to bigint, p_meta jsonb
) RETURNS messages AS $$
DECLARE
    v_message messages;
    v_id bigint;
    v_parent bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1, hashint8(p_conversation));
    SELECT id + 1 INTO v_id FROM messages
    WHERE user_id = p_user AND conversation_id = ANY (ARRAY[p_conversation])
    ORDER BY conversation_id, id DESC LIMIT 1;
    SELECT id INTO v_parent FROM messages
    WHERE user_id = p_user AND conversation_id = ANY (ARRAY[p_conversation]) AND shown
    ORDER BY conversation_id, id DESC LIMIT 1;
    INSERT INTO messages (id, conversation_id, user_id, role, author, kind, content, tool_calls,
                          error, reply_to, meta, parent_id)
    VALUES (greatest(nextval('messages_id_seq'), v_id), p_conversation, p_user, p_role,
            p_author, p_kind, p_content, p_tool_calls, p_error, p_reply_to, p_meta, v_parent)
    RETURNING * INTO v_message;
    RETURN v_message;
END
$$ LANGUAGE plpgsql;
