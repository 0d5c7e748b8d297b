-- On a Citus cluster, the id of the transaction that wrote the row, taken on the node that
-- stores it (parley.cluster.layout puts this trigger on messages, user_events and push_outbox
-- there). Citus evaluates a column default on the coordinator when the statement is routed
-- from there, which would give the row the coordinator's transaction id; each node's reader
-- needs its own node's (specs/scale.md, "Delivery per node"). Unused on one PostgreSQL,
-- where the column default is already the writer's own.
CREATE OR REPLACE FUNCTION parley_writer_xid() RETURNS trigger AS $$
BEGIN
    NEW.xid := pg_current_xact_id();
    RETURN NEW;
END
$$ LANGUAGE plpgsql;
