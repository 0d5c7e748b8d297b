-- One outbox row per device of the person, unless they turned this kind off or muted the
-- conversation. Questions and run failures notify unless turned off; messages only if on.
-- A row at a time, not an INSERT ... SELECT: Citus sends that to every shard, which a
-- trigger on one node may not.
CREATE OR REPLACE FUNCTION parley_push_enqueue(
    p_user text, p_kind text, p_ref bigint, p_conversation bigint
)
RETURNS void AS $$
DECLARE
    v_device bigint;
BEGIN
    IF p_conversation IS NOT NULL AND EXISTS (
        SELECT 1 FROM conversation_mutes
        WHERE user_id = p_user AND conversation_id = p_conversation
    ) THEN
        RETURN;
    END IF;
    IF NOT coalesce((SELECT CASE WHEN p_kind IN ('question', 'reminder') THEN question
                                 WHEN p_kind = 'run_failed' THEN run_failed
                                        ELSE message END
                     FROM notification_prefs WHERE user_id = p_user), p_kind <> 'message') THEN
        RETURN;
    END IF;
    FOR v_device IN SELECT id FROM push_subscriptions WHERE user_id = p_user ORDER BY id LOOP
        INSERT INTO push_outbox (subscription_id, user_id, kind, ref, conversation_id)
        VALUES (v_device, p_user, p_kind, p_ref, p_conversation)
        ON CONFLICT DO NOTHING;
    END LOOP;
END
$$ LANGUAGE plpgsql
