-- Log trigger: a run started, or its status, progress, latest status or title changed.
CREATE OR REPLACE FUNCTION parley_log_run() RETURNS trigger AS $$
BEGIN
    PERFORM parley_user_event(NEW.user_id, 'run', parley_action(TG_OP), NEW.id, NULL);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
