-- A turn whose claim ends without its finish (its server died, or lost the database for
-- longer than a claim lasts) is answered for it: when the claim is taken over by a new turn,
-- or released by the sweep, this trigger stores an assistant reply marked as an error and
-- `meta.interrupted`, holding every tool call the turn recorded (a call that never reported
-- back says so), and completes the turn (version + 1). So the conversation shows what was
-- done, its roles still alternate, and the person can retry.
-- A finish bumps version in the same UPDATE, which is how it is told apart.
CREATE OR REPLACE FUNCTION parley_turn_abandoned() RETURNS trigger AS $$
DECLARE
    v_calls jsonb;
BEGIN
    IF OLD.turn_id IS NULL OR NEW.turn_id IS NOT DISTINCT FROM OLD.turn_id
       OR NEW.version <> OLD.version THEN
        RETURN NEW;
    END IF;
    SELECT jsonb_agg(jsonb_build_object(
               'tool', tool, 'parameters', parameters,
               'result', coalesce(result, jsonb_build_object('error',
                   'Interrupted before it reported back: it may or may not have happened'))
           ) ORDER BY id)
    INTO v_calls
    FROM turn_tool_calls
    WHERE user_id = OLD.user_id AND turn_id = OLD.turn_id AND conversation_id = OLD.id;
    PERFORM parley_append_message(
        OLD.id, OLD.user_id, 'assistant', 'assistant', 'message',
        CASE WHEN v_calls IS NULL
             THEN 'This reply was interrupted (the server stopped). You can try again.'
             ELSE 'This reply was interrupted (the server stopped) after the steps below. '
                  || 'Trying again will not repeat them.'
        END,
        v_calls, true, NULL, jsonb_build_object('interrupted', true)
    );
    NEW.version := OLD.version + 1;
    NEW.updated_at := now();
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
