-- Append one row to a person's change log (`user_events`), which their event stream reads.
-- Called by the log triggers at commit (they are deferred): the person's advisory lock is taken
-- before the id is drawn, so one person's event ids commit in order and a stream resuming after
-- id N never skips one that committed late. Nothing is notified: each instance's reader finds
-- the new rows by snapshot (migration 0045; specs/realtime.md).
CREATE OR REPLACE FUNCTION parley_user_event(
    p_user text, p_kind text, p_action text, p_ref bigint, p_data jsonb
) RETURNS void AS $$
DECLARE
    v_id bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(2, hashtext(p_user));
    -- Past the person's newest id, like a message's (parley_append_message).
    SELECT max(id) + 1 INTO v_id FROM user_events WHERE user_id = p_user;
    INSERT INTO user_events (id, user_id, kind, action, ref, data)
    VALUES (greatest(nextval('user_events_id_seq'), v_id), p_user, p_kind, p_action, p_ref,
            p_data);
END
$$ LANGUAGE plpgsql;
