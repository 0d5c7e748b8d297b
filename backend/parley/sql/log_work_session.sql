-- A work session's shown state (status, cost, pending permission request) changed: log it as
-- a change of its conversation, which the person's event stream renders with that state.
-- Its triggers (migration 0048) fire only on those columns, deferred to commit like the
-- other change-log triggers.
CREATE OR REPLACE FUNCTION parley_log_work_session() RETURNS trigger AS $$
BEGIN
    PERFORM parley_user_event(NEW.user_id, 'conversation', 'updated', NEW.conversation_id, NULL);
    RETURN NULL;
END
$$ LANGUAGE plpgsql
