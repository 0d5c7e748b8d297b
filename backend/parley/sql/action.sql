-- A trigger's operation (TG_OP) as the action a person event names.
CREATE OR REPLACE FUNCTION parley_action(p_op text) RETURNS text AS $$
    SELECT CASE p_op WHEN 'INSERT' THEN 'created' WHEN 'UPDATE' THEN 'updated' ELSE 'deleted' END
$$ LANGUAGE sql IMMUTABLE;
