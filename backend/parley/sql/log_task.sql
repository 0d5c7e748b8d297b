-- Log trigger: a task created, updated or deleted, as a person event (with its number).
CREATE OR REPLACE FUNCTION parley_log_task() RETURNS trigger AS $$
DECLARE
    v_row tasks := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
BEGIN
    PERFORM parley_user_event(v_row.user_id, 'task', parley_action(TG_OP), v_row.id,
        jsonb_build_object('number', coalesce(to_jsonb(v_row) -> 'number', to_jsonb(v_row.id))));
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
