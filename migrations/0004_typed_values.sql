-- 0004_typed_values.sql - reported metric values in typed columns.
--
-- Until now a trial's values and each intermediate report's values were
-- numbers inside jsonb. jsonb writes a number as a decimal literal, so
-- 1e19 came back as 10000000000000000000, which a JSON reader refuses as
-- an integer: the acknowledged value read back as nothing, the trial fell
-- out of /best, /pareto and the model, and a conflicting report was let
-- through. A double precision column holds every finite double exactly
-- and reads back as the shortest text that round-trips, and the model
-- loads its history without parsing JSON per trial.
--
-- One row per (trial, metric) for final values and per (trial, step,
-- metric) for intermediate reports; intermediate_values keeps one row per
-- (trial, step) with the action answered, so a step report that carried
-- no metric of its own still answers as before.

CREATE TABLE trial_values (
    trial_id bigint NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    metric   text   NOT NULL CHECK (metric ~ '^[A-Za-z0-9_.-]{1,64}$'),
    value    double precision NOT NULL
             CHECK (value > '-Infinity' AND value < 'Infinity'),
    PRIMARY KEY (trial_id, metric)
);

CREATE TABLE step_values (
    trial_id bigint  NOT NULL,
    step     integer NOT NULL,
    metric   text    NOT NULL CHECK (metric ~ '^[A-Za-z0-9_.-]{1,64}$'),
    value    double precision NOT NULL
             CHECK (value > '-Infinity' AND value < 'Infinity'),
    PRIMARY KEY (trial_id, step, metric),
    FOREIGN KEY (trial_id, step)
        REFERENCES intermediate_values (trial_id, step) ON DELETE CASCADE
);

-- What jsonb held: its numbers, whatever text jsonb gave them, are read as
-- float8 (the same nearest double the client's text denoted).
INSERT INTO trial_values (trial_id, metric, value)
SELECT t.id, e.key, (e.value #>> '{}')::double precision
  FROM trials t, jsonb_each(t.values) e
 WHERE jsonb_typeof(e.value) = 'number';

INSERT INTO step_values (trial_id, step, metric, value)
SELECT i.trial_id, i.step, e.key, (e.value #>> '{}')::double precision
  FROM intermediate_values i, jsonb_each(i.values) e
 WHERE jsonb_typeof(e.value) = 'number';

ALTER TABLE trials DROP COLUMN values;
ALTER TABLE intermediate_values DROP COLUMN values;
