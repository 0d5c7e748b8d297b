-- Trigger: a run that ends closes its open questions, whichever code path ended it (End, a
-- crash, a sweep, a finished run): nobody waits for them, and a permission question's message
-- is marked closed.
CREATE OR REPLACE FUNCTION parley_close_run_questions() RETURNS trigger AS $$
BEGIN
    WITH closed AS (
        UPDATE questions SET status = 'closed', closed_at = now()
        WHERE user_id = NEW.user_id AND run_id = NEW.id AND status = 'open' RETURNING message_id
    )
    UPDATE messages m SET meta = m.meta || jsonb_build_object('closed', 'closed')
    FROM closed
    WHERE m.user_id = NEW.user_id AND m.id = closed.message_id AND m.meta ? 'permission';
    RETURN NULL;
END
$$ LANGUAGE plpgsql;
