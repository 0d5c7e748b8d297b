-- Log trigger: a conversation created, deleted or renamed, or its read position moved.
CREATE OR REPLACE FUNCTION parley_log_conversation() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM parley_user_event(OLD.user_id, 'conversation', 'deleted', OLD.id, NULL);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM parley_user_event(NEW.user_id, 'conversation', 'created', NEW.id, NULL);
    ELSE
        IF OLD.title IS DISTINCT FROM NEW.title THEN
            PERFORM parley_user_event(NEW.user_id, 'conversation', 'updated', NEW.id, NULL);
        END IF;
        IF OLD.last_read_id IS DISTINCT FROM NEW.last_read_id THEN
            PERFORM parley_user_event(NEW.user_id, 'read', 'updated', NEW.id, NULL);
        END IF;
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
