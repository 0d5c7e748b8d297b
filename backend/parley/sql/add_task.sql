-- Add a task with the person's next number: the counter's row lock hands concurrent adds of
-- one person distinct numbers, and both rows are written together.
CREATE OR REPLACE FUNCTION parley_add_task(p_user text, p_title text, p_description text)
RETURNS tasks AS $$
DECLARE
    v_number int;
    v_task tasks;
BEGIN
    INSERT INTO task_counters (user_id, last_number) VALUES (p_user, 1)
    ON CONFLICT (user_id) DO UPDATE SET last_number = task_counters.last_number + 1
    RETURNING last_number INTO v_number;
    INSERT INTO tasks (user_id, number, title, description)
    VALUES (p_user, v_number, p_title, p_description)
    RETURNING * INTO v_task;
    RETURN v_task;
END
$$ LANGUAGE plpgsql;
