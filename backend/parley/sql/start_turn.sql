-- Start a turn: claim the conversation (a new one of mode p_mode when p_conversation is
-- NULL), store the person's message as role p_role, and return the last p_history
-- messages, newest first. One statement, so a refusal or failure leaves nothing behind.
--
-- p_content NULL retries the conversation's last turn instead: nothing is stored, and the
-- newest message must be a failed reply (else SQLSTATE PT422).
-- Safe to repeat with the same p_turn (the connection dropped before the answer came): a
-- start that committed returns the history without storing anything twice.
-- p_from names a shown message this turn replaces on a new branch (migration 0067): with
-- p_content, one of the person's (an edit: the new message is its sibling); without, a reply
-- (regenerate: the reply to come is its sibling). It and the shown messages after it leave
-- the shown branch; they stay stored, a switch away (show_branch.sql).
-- Errors: PT404 no such conversation for this user; PT409 a live claim is in the way;
-- PT423 p_from is not a message of this conversation that can be replaced so; PT412 it is
-- not on the shown branch (any more).
-- Which conversations take a turn is not this function's to say: the caller's mode
-- (parley.modes) sends only its own conversations here; p_mode is the new one's mode.
CREATE OR REPLACE FUNCTION parley_start_turn(
    p_user text, p_conversation bigint, p_mode conversation_mode, p_title text, p_turn text,
    p_ttl float8, p_role message_role, p_content text, p_history int, p_from bigint
) RETURNS SETOF messages AS $$
DECLARE
    v_conversation bigint := p_conversation;
    v_holder text;
    v_role message_role;
    v_shown boolean;
    v_done boolean := false;  -- this turn started before: a repeat after a lost answer
BEGIN
    IF v_conversation IS NULL THEN
        SELECT id INTO v_conversation FROM conversations
        WHERE user_id = p_user AND turn_id = p_turn;
        v_done := FOUND;
        IF NOT v_done THEN
            INSERT INTO conversations (user_id, mode, title, turn_id, turn_expires_at)
            VALUES (p_user, p_mode, p_title, p_turn, now() + make_interval(secs => p_ttl))
            RETURNING id INTO v_conversation;
        END IF;
    ELSE
        -- A claim is not activity: updated_at stays (the list orders by finished turns).
        UPDATE conversations
        SET turn_id = p_turn, turn_expires_at = now() + make_interval(secs => p_ttl)
        WHERE id = v_conversation AND user_id = p_user
          AND (turn_id IS NULL OR turn_expires_at < now());
        IF NOT FOUND THEN
            SELECT turn_id INTO v_holder FROM conversations
            WHERE id = v_conversation AND user_id = p_user;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'conversation not found' USING ERRCODE = 'PT404';
            END IF;
            IF v_holder IS DISTINCT FROM p_turn THEN
                RAISE EXCEPTION 'turn in progress' USING ERRCODE = 'PT409';
            END IF;
            v_done := true;
        END IF;
    END IF;
    IF v_done THEN
        -- Others (agents) may have written since: the history still ends at this turn's
        -- message, the newest from the person (nobody else's turn can start meanwhile).
        RETURN QUERY
            SELECT * FROM messages
            WHERE user_id = p_user AND conversation_id = ANY (ARRAY[v_conversation])
              AND shown
              AND id <= (SELECT id FROM messages WHERE user_id = p_user
                         AND conversation_id = ANY (ARRAY[v_conversation]) AND role = p_role
                         AND shown
                         ORDER BY conversation_id, id DESC LIMIT 1)
            ORDER BY conversation_id, id DESC LIMIT p_history;
        RETURN;
    END IF;
    IF p_from IS NOT NULL THEN
        -- Under the lock every writer takes: nothing is appended while the branch moves.
        PERFORM pg_advisory_xact_lock(1, hashint8(v_conversation));
        SELECT role, shown INTO v_role, v_shown FROM messages
        WHERE user_id = p_user AND conversation_id = v_conversation AND id = p_from;
        IF NOT FOUND
           OR (p_content IS NOT NULL AND v_role <> p_role)
           OR (p_content IS NULL AND v_role <> 'assistant') THEN
            RAISE EXCEPTION 'not a replaceable message' USING ERRCODE = 'PT423';
        END IF;
        IF NOT v_shown THEN
            RAISE EXCEPTION 'branch changed' USING ERRCODE = 'PT412';
        END IF;
        -- The shown messages are one path, ids growing down it: those from p_from on are
        -- p_from and what follows it, and the newest left shown is its parent.
        UPDATE messages SET shown = false
        WHERE user_id = p_user AND conversation_id = ANY (ARRAY[v_conversation]) AND shown
          AND id >= p_from;
    END IF;
    IF p_content IS NULL AND p_from IS NOT NULL THEN
        NULL;  -- regenerate: the reply's question is already the newest shown message
    ELSIF p_content IS NULL THEN
        IF NOT coalesce((SELECT error FROM messages WHERE user_id = p_user
                         AND conversation_id = ANY (ARRAY[v_conversation]) AND shown
                         ORDER BY conversation_id, id DESC LIMIT 1), false) THEN
            RAISE EXCEPTION 'nothing to retry' USING ERRCODE = 'PT422';
        END IF;
    ELSE
        -- The lock it takes also keeps anyone from writing after this message until the
        -- history is read.
        PERFORM parley_append_message(
            v_conversation, p_user, p_role, p_user, 'message', p_content, NULL, false, NULL, NULL
        );
    END IF;
    -- Newest first; ANY keeps to the (conversation_id, id DESC) index whatever the plan.
    RETURN QUERY
        SELECT * FROM messages
        WHERE user_id = p_user AND conversation_id = ANY (ARRAY[v_conversation]) AND shown
        ORDER BY conversation_id, id DESC LIMIT p_history;
END
$$ LANGUAGE plpgsql;
