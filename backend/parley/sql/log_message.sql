-- Log trigger: a stored message, as a person event naming its conversation and role.
CREATE OR REPLACE FUNCTION parley_log_message() RETURNS trigger AS $$
BEGIN
    PERFORM parley_user_event(NEW.user_id, 'message', 'created', NEW.id,
        jsonb_build_object('conversation_id', NEW.conversation_id, 'role', NEW.role));
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
