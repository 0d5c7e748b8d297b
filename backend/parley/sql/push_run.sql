-- A run failed: push it (unless the person turned failures off or muted the conversation).
CREATE OR REPLACE FUNCTION parley_push_run() RETURNS trigger AS $$
BEGIN
    PERFORM parley_push_enqueue(NEW.user_id, 'run_failed', NEW.id, NEW.conversation_id);
    RETURN NULL;
END
$$ LANGUAGE plpgsql
