-- An agent's message in the inbox: push it, only for people who turned messages on.
CREATE OR REPLACE FUNCTION parley_push_message() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM conversations
               WHERE user_id = NEW.user_id AND id = NEW.conversation_id AND mode = 'inbox') THEN
        PERFORM parley_push_enqueue(NEW.user_id, 'message', NEW.id, NEW.conversation_id);
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
