-- Log trigger: a question opened, or its status changed (answered, timed_out, closed).
CREATE OR REPLACE FUNCTION parley_log_question() RETURNS trigger AS $$
BEGIN
    PERFORM parley_user_event(NEW.user_id, 'question',
        CASE WHEN TG_OP = 'INSERT' THEN 'opened' ELSE NEW.status END, NEW.message_id, NULL);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
