-- 0012_trial_measures.sql - what a trial of a study with a decoupled
-- constraint is asked to measure now (issue 16, "measure" in the suggest
-- answer; docs/ARCHITECTURE.md, "Decoupled constraints").
--
-- The choice (probe the decoupled constraints first, or train and measure
-- everything) depends on the models at the time of the suggest and
-- cannot be recomputed later, so it is stored: a row is written in the
-- transaction that inserts the trial, and rewritten by the report that
-- shows the probe passed (the trial is then asked for the rest). A trial
-- with no row (other studies, enqueued trials) measures every metric.
-- measure is the JSON text of an array of metric names.

CREATE TABLE trial_measures (
    trial_id bigint PRIMARY KEY REFERENCES trials (id) ON DELETE CASCADE,
    measure  text NOT NULL
);
