-- Show the branch of p_message (a message kept off the shown branch by an edit or a
-- regenerated reply, migration 0067): the shown messages after its parent leave the shown
-- branch, and p_message and, below it, each newest child join it. Returns the conversation's
-- version, one more when the branch moved; nothing moves when p_message is shown already.
-- Errors: PT404 no such conversation for this user; PT409 a turn is running there; PT423
-- p_message is not one of its messages; PT412 its parent is not shown (another switch moved
-- the branch first).
CREATE OR REPLACE FUNCTION parley_show_branch(
    p_user text, p_conversation bigint, p_message bigint
) RETURNS bigint AS $$
DECLARE
    v_holder text;
    v_expires timestamptz;
    v_version bigint;
    v_parent bigint;
    v_shown boolean;
    v_next bigint := p_message;
BEGIN
    -- The row lock a turn's start takes too: a switch and a turn's start are never at once.
    SELECT turn_id, turn_expires_at, version INTO v_holder, v_expires, v_version
    FROM conversations WHERE user_id = p_user AND id = p_conversation FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'conversation not found' USING ERRCODE = 'PT404';
    END IF;
    IF v_holder IS NOT NULL AND v_expires >= now() THEN
        RAISE EXCEPTION 'turn in progress' USING ERRCODE = 'PT409';
    END IF;
    PERFORM pg_advisory_xact_lock(1, hashint8(p_conversation));
    SELECT parent_id, shown INTO v_parent, v_shown FROM messages
    WHERE user_id = p_user AND conversation_id = p_conversation AND id = p_message;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no such message' USING ERRCODE = 'PT423';
    END IF;
    IF v_shown THEN
        RETURN v_version;
    END IF;
    IF v_parent IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM messages WHERE user_id = p_user AND conversation_id = p_conversation
          AND id = v_parent AND shown
    ) THEN
        RAISE EXCEPTION 'branch changed' USING ERRCODE = 'PT412';
    END IF;
    -- The shown path below the parent: every shown message newer than it.
    UPDATE messages SET shown = false
    WHERE user_id = p_user AND conversation_id = ANY (ARRAY[p_conversation]) AND shown
      AND id > coalesce(v_parent, 0);
    LOOP
        UPDATE messages SET shown = true
        WHERE user_id = p_user AND conversation_id = p_conversation AND id = v_next;
        SELECT max(id) INTO v_next FROM messages
        WHERE user_id = p_user AND conversation_id = p_conversation AND parent_id = v_next;
        EXIT WHEN v_next IS NULL;
    END LOOP;
    UPDATE conversations SET version = version + 1
    WHERE user_id = p_user AND id = p_conversation
    RETURNING version INTO v_version;
    RETURN v_version;
END
$$ LANGUAGE plpgsql;
