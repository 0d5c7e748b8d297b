-- Finish a turn: store its reply (role p_role, written by p_author) and release the claim,
-- both or neither. PT409 when the claim was lost (it expired and another turn took it).
CREATE OR REPLACE FUNCTION parley_finish_turn(
    p_user text, p_conversation bigint, p_turn text, p_role message_role, p_author text,
    p_kind message_kind, p_content text, p_tool_calls jsonb, p_error boolean, p_meta jsonb
) RETURNS SETOF messages AS $$
BEGIN
    UPDATE conversations
    SET version = version + 1, turn_id = NULL, turn_expires_at = NULL, updated_at = now()
    WHERE id = p_conversation AND user_id = p_user AND turn_id = p_turn;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'claim lost' USING ERRCODE = 'PT409';
    END IF;
    RETURN NEXT parley_append_message(
        p_conversation, p_user, p_role, p_author, p_kind, p_content, p_tool_calls, p_error,
        NULL, p_meta
    );
END
$$ LANGUAGE plpgsql;
