-- A question opened: push it to each device; closed: replace what was shown with a
-- closing push of the same tag on every device that got it (or is getting it), a row at a
-- time (see parley_push_enqueue).
CREATE OR REPLACE FUNCTION parley_push_question() RETURNS trigger AS $$
DECLARE
    v_shown record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM parley_push_enqueue(NEW.user_id, 'question', NEW.message_id, NEW.conversation_id);
        RETURN NULL;
    END IF;
    -- Closed before its push left: nothing was shown, nothing to replace.
    DELETE FROM push_outbox
    WHERE user_id = NEW.user_id AND ref = NEW.message_id AND kind IN ('question', 'reminder')
      AND status = 'pending' AND attempts = 0 AND (lease_until IS NULL OR lease_until < now());
    -- Every device that was (or is being) shown it gets the closing push, same tag.
    FOR v_shown IN
        SELECT DISTINCT subscription_id, conversation_id FROM push_outbox
        WHERE user_id = NEW.user_id AND ref = NEW.message_id AND kind IN ('question', 'reminder')
        ORDER BY subscription_id
    LOOP
        INSERT INTO push_outbox (subscription_id, user_id, kind, ref, conversation_id)
        VALUES (v_shown.subscription_id, NEW.user_id, 'question_closed', NEW.message_id,
                v_shown.conversation_id)
        ON CONFLICT DO NOTHING;
    END LOOP;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
