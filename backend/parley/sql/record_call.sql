-- A running turn's tool call, written down before it runs (parley.assistant.ledger), only
-- while the turn still holds its claim: the conversation row is locked FOR SHARE with the
-- claim checked, so no other turn takes the conversation until this one's write commits.
-- The records of the person's earlier prompts in the conversation go (never needed again).
-- The write does not wait for the disk (see the ledger). NULL when the claim is gone.
CREATE OR REPLACE FUNCTION parley_record_call(
    p_user text, p_conversation bigint, p_turn text, p_prompt bigint, p_tool text,
    p_parameters jsonb, p_result jsonb, p_replay_of bigint
) RETURNS bigint AS $$
DECLARE
    v_call bigint;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM 1 FROM conversations
    WHERE user_id = p_user AND id = p_conversation AND turn_id = p_turn
      AND turn_expires_at > now()
    FOR SHARE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    DELETE FROM turn_tool_calls
    WHERE user_id = p_user AND conversation_id = p_conversation AND prompt_id < p_prompt;
    INSERT INTO turn_tool_calls
        (conversation_id, user_id, turn_id, prompt_id, tool, parameters, result, replay_of)
    VALUES (p_conversation, p_user, p_turn, p_prompt, p_tool, p_parameters, p_result,
            p_replay_of)
    RETURNING id INTO v_call;
    RETURN v_call;
END
$$ LANGUAGE plpgsql;
