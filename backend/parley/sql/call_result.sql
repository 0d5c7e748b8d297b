-- A recorded tool call's result (parley.assistant.ledger); the write does not wait for the
-- disk: the next commit that does (the tool's own effect, the turn's finish) makes it durable.
CREATE OR REPLACE FUNCTION parley_call_result(p_user text, p_call bigint, p_result jsonb)
RETURNS void AS $$
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    UPDATE turn_tool_calls SET result = p_result WHERE user_id = p_user AND id = p_call;
END
$$ LANGUAGE plpgsql;
