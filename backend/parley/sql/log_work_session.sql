-- A work session's shown state (status, cost, pending permission request) changed: log it as
-- a change of its conversation, which the person's event stream renders with that state.
CREATE OR REPLACE FUNCTION parley_log_work_session() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status
       OR OLD.cost_usd IS DISTINCT FROM NEW.cost_usd
       OR OLD.pending IS DISTINCT FROM NEW.pending THEN
        PERFORM parley_user_event(NEW.user_id, 'conversation', 'updated', NEW.conversation_id,
            NULL);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
