-- 0010_history_xid.sql - which transaction last changed each trial, so
-- that a process can keep a study's history in memory and re-read only
-- what changed since it last looked (study/histcache.c, issue 14).
--
-- trials.changed_xid is the id (xid8: 64 bits with the epoch, so it
-- never wraps) of the transaction that inserted the row or last updated
-- it. A reader remembers the xmin of the snapshot it read in: every
-- transaction not visible to that snapshot has an id >= its xmin, so the
-- rows with changed_xid >= xmin include every row changed since. A
-- "max(sequence)" would not do: sequence values are taken before commit,
-- and a row with a lower value can commit after a higher one was read.
--
-- Triggers, not a column every UPDATE sets: the history is read from
-- trials and trial_values, which several modules write (report, suggest,
-- lease expiry, enqueue, heartbeat, fail, multi-fidelity), and a statement
-- added later that forgot the column would leave a cache stale forever.
-- A write of trial_values stamps its trial (the history reads values
-- through their trial); when the trial row was already stamped by the
-- same transaction, the trigger's UPDATE matches no row and writes
-- nothing.

ALTER TABLE trials
    ADD COLUMN changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE FUNCTION trials_stamp_xid() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed_xid := pg_current_xact_id();
    RETURN NEW;
END
$$;

CREATE TRIGGER trials_stamp_xid BEFORE INSERT OR UPDATE ON trials
    FOR EACH ROW EXECUTE FUNCTION trials_stamp_xid();

CREATE FUNCTION trial_values_stamp_trial() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE trials SET changed_xid = pg_current_xact_id()
        WHERE id = NEW.trial_id AND changed_xid <> pg_current_xact_id();
    RETURN NULL;
END
$$;

CREATE TRIGGER trial_values_stamp_trial AFTER INSERT OR UPDATE ON trial_values
    FOR EACH ROW EXECUTE FUNCTION trial_values_stamp_trial();

CREATE INDEX trials_changed ON trials (study_id, changed_xid);
