-- Lock a conversation an agent or a person posts into (POST .../messages, the MCP tools) and
-- say whether they may: PT404 not the person's, PT409 not an inbox/run/delegation conversation,
-- PT410 its run has ended or its thread is closed, PT403 another agent's run. Returns the
-- conversation's run id, if any.
CREATE OR REPLACE FUNCTION parley_writable(p_user text, p_agent text, p_conversation bigint)
RETURNS int AS $$
DECLARE
    v_mode conversation_mode;
    v_run int;
    v_run_agent text;
    v_run_status run_status;
    v_thread delegations;
BEGIN
    SELECT mode INTO v_mode FROM conversations
    WHERE id = p_conversation AND user_id = p_user FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Conversation % not found', p_conversation USING ERRCODE = 'PT404';
    END IF;
    IF v_mode NOT IN ('inbox', 'run', 'delegation') THEN
        RAISE EXCEPTION 'A % conversation takes messages through POST /chat', v_mode
            USING ERRCODE = 'PT409';
    END IF;
    SELECT id, agent, status INTO v_run, v_run_agent, v_run_status FROM agent_runs
    WHERE user_id = p_user AND conversation_id = p_conversation ORDER BY id LIMIT 1;
    IF v_run_status IN ('completed', 'failed', 'cancelled', 'timed_out') THEN
        RAISE EXCEPTION 'Run % has ended (%); its conversation is read-only', v_run, v_run_status
            USING ERRCODE = 'PT410';
    END IF;
    SELECT * INTO v_thread FROM delegations WHERE user_id = p_user AND thread_id = p_conversation;
    IF v_thread.status IN ('completed', 'failed', 'escalated', 'cancelled', 'timed_out') THEN
        RAISE EXCEPTION 'Thread % is closed (%)', p_conversation, v_thread.status
            USING ERRCODE = 'PT410';
    END IF;
    -- A thread is written by its two agents (and the person); a run by its own agent.
    IF p_agent IS NOT NULL AND v_run IS NOT NULL AND v_run_agent IS DISTINCT FROM p_agent
       AND v_thread.parent_agent IS DISTINCT FROM p_agent THEN
        RAISE EXCEPTION 'Run % belongs to agent %', v_run, v_run_agent USING ERRCODE = 'PT403';
    END IF;
    RETURN v_run;
END
$$ LANGUAGE plpgsql;
