-- A deleted conversation's runs stay (a run is history), without it: they lose their
-- conversation_id. A foreign key's ON DELETE SET NULL would say this, but not on a Citus
-- cluster, where every key between per-person tables holds user_id, which it would null too.
CREATE OR REPLACE FUNCTION parley_detach_runs() RETURNS trigger AS $$
BEGIN
    UPDATE agent_runs SET conversation_id = NULL
    WHERE user_id = OLD.user_id AND conversation_id = OLD.id;
    RETURN OLD;
END
$$ LANGUAGE plpgsql;
