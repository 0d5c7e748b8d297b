-- Post a message into an inbox, run or delegation conversation (after `parley_writable`). A
-- person's message answers the question it replies to (else the oldest open one there); in a
-- thread, the parent agent answers the child's question it replies to, unless the parent is
-- the child (an agent that delegated to itself): no agent answers a question it asked, so
-- that one is the person's to answer. A question opens a
-- `questions` row and puts its run in waiting_input; an answer puts the run back to running
-- once none of its questions is open. Returns the message and the question it answered.
CREATE OR REPLACE FUNCTION parley_post_message(
    p_user text, p_agent text, p_conversation bigint, p_content text, p_kind message_kind,
    p_reply_to bigint, p_timeout float8, p_meta jsonb
) RETURNS TABLE (message messages, answered bigint) AS $$
DECLARE
    v_run int := parley_writable(p_user, p_agent, p_conversation);
    v_answered bigint;
    v_message messages;
    v_thread delegations;
BEGIN
    SELECT * INTO v_thread FROM delegations WHERE user_id = p_user AND thread_id = p_conversation;
    IF p_reply_to IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM messages
        WHERE user_id = p_user AND id = p_reply_to AND conversation_id = p_conversation
    ) THEN
        RAISE EXCEPTION 'reply_to % is not a message of conversation %', p_reply_to,
            p_conversation USING ERRCODE = 'PT422';
    END IF;
    -- A person's message answers the question it replies to, else the oldest open one here;
    -- in a thread, the parent agent answers the child's question it replies to.
    IF p_kind IN ('message', 'answer') AND (p_agent IS NULL OR (
        p_reply_to IS NOT NULL AND p_agent = v_thread.parent_agent
    )) THEN
        IF p_reply_to IS NOT NULL THEN
            SELECT message_id INTO v_answered FROM questions
            WHERE user_id = p_user AND message_id = p_reply_to AND status = 'open'
              AND timeout_at > now()
              AND (p_agent IS NULL OR (asked_by = v_thread.child_agent AND asked_by <> p_agent))
            FOR UPDATE;
        ELSE
            SELECT message_id INTO v_answered FROM questions
            WHERE user_id = p_user AND conversation_id = p_conversation AND status = 'open'
              AND timeout_at > now()
            ORDER BY message_id LIMIT 1 FOR UPDATE;
        END IF;
    END IF;
    v_message := parley_append_message(
        p_conversation, p_user,
        CASE WHEN p_agent IS NULL THEN 'user' ELSE 'agent' END::message_role,
        coalesce(p_agent, p_user),
        CASE WHEN v_answered IS NULL THEN p_kind ELSE 'answer' END::message_kind,
        p_content, NULL, false, coalesce(v_answered, p_reply_to),
        CASE WHEN p_agent IS NOT NULL AND v_thread.thread_id IS NOT NULL  -- who it is for
            THEN coalesce(p_meta, '{}') || jsonb_build_object('to', CASE
                WHEN p_agent = v_thread.parent_agent THEN v_thread.child_agent
                ELSE v_thread.parent_agent END)
            ELSE p_meta END
    );
    IF v_answered IS NOT NULL THEN
        UPDATE questions SET status = 'answered', answer_id = v_message.id, closed_at = now()
        WHERE user_id = p_user AND message_id = v_answered;
        -- The run goes back to running once none of its questions is open.
        UPDATE agent_runs r SET status = 'running', last_activity_at = now()
        FROM questions q
        WHERE q.user_id = p_user AND q.message_id = v_answered
          AND r.user_id = p_user AND r.id = q.run_id AND r.status = 'waiting_input'
          AND NOT EXISTS (SELECT 1 FROM questions o
                          WHERE o.user_id = p_user AND o.run_id = r.id AND o.status = 'open');
    END IF;
    IF p_kind = 'question' THEN
        INSERT INTO questions (message_id, user_id, conversation_id, run_id, asked_by, timeout_at)
        VALUES (v_message.id, p_user, p_conversation, v_run, p_agent,
                now() + make_interval(secs => p_timeout));
    END IF;
    IF v_run IS NOT NULL AND p_agent IS NOT NULL THEN
        UPDATE agent_runs SET last_activity_at = now(),
            status = CASE WHEN p_kind = 'question' THEN 'waiting_input' ELSE status END
        WHERE user_id = p_user AND id = v_run;
    END IF;
    IF p_agent IS NULL THEN  -- what the person writes, they have read up to
        UPDATE conversations SET last_read_id = v_message.id
        WHERE user_id = p_user AND id = p_conversation AND last_read_id < v_message.id;
    END IF;
    RETURN QUERY SELECT v_message, v_answered;
END
$$ LANGUAGE plpgsql;
