-- A fork (parley.chat.edits): copies of the person's messages before p_before in one
-- conversation, into another, in order, each keeping its author, text, tool calls and time,
-- and naming the message it copies (`meta.copied_from`); returns the newest copy's id (0:
-- none). The statement is built with the values written in: Citus refuses an INSERT ...
-- SELECT that takes parameters, and runs this one whole on the person's node.
CREATE OR REPLACE FUNCTION parley_copy_messages(
    p_user text, p_from bigint, p_to bigint, p_before bigint
) RETURNS bigint AS $$
DECLARE
    v_last bigint;
BEGIN
    EXECUTE format($copy$
        INSERT INTO messages (conversation_id, user_id, role, author, kind, content,
                              tool_calls, error, reply_to, meta, created_at)
        SELECT %1$s, user_id, role, author, kind, content, tool_calls, error, NULL,
               coalesce(meta, '{}'::jsonb) || jsonb_build_object('copied_from',
                   jsonb_build_object('conversation_id', conversation_id, 'message_id', id)),
               created_at
        FROM messages WHERE user_id = %2$L AND conversation_id = %3$s AND id < %4$s
        ORDER BY id
    $copy$, p_to, p_user, p_from, p_before);
    SELECT max(id) INTO v_last FROM messages WHERE user_id = p_user AND conversation_id = p_to;
    RETURN coalesce(v_last, 0);
END
$$ LANGUAGE plpgsql;
