-- An MCP tool call remembered by its client's call id (parley.tools.call_memory): true when
-- this call is the first with the key (now claimed: it runs), or takes over a claim that was
-- forgotten (a day old) or went stale (nothing came of it in p_stale seconds). The cut-offs
-- are worked out first: Citus refuses a function of the clock inside ON CONFLICT ... DO UPDATE.
CREATE OR REPLACE FUNCTION parley_remember_call(
    p_user text, p_caller text, p_key text, p_tool text, p_stale float8
) RETURNS boolean AS $$
DECLARE
    v_now timestamptz := now();
    v_forgotten timestamptz := now() - interval '1 day';
    v_stale timestamptz := now() - make_interval(secs => p_stale);
BEGIN
    INSERT INTO mcp_calls AS c (user_id, caller, key, tool) VALUES (p_user, p_caller, p_key, p_tool)
    ON CONFLICT (user_id, caller, key) DO UPDATE
    SET tool = EXCLUDED.tool, result = NULL, wait = NULL, started_at = v_now, created_at = v_now
    WHERE c.created_at < v_forgotten
       OR (c.result IS NULL AND c.wait IS NULL AND c.started_at < v_stale);
    RETURN FOUND;
END
$$ LANGUAGE plpgsql;
