-- 0032_define_by_run.sql - what suggest proposed for a trial of a
-- define-by-run study (docs/trainer.md, "Define-by-run").
--
-- A study created with an empty space grows its space as trials ask for
-- parameters (POST /v1/trials/{id}/params), and a trial's params are only
-- those it asked for: the others are inactive for the model. At suggest
-- time the sampler still chooses a joint configuration of every parameter
-- the study knows; it is kept here, and /params answers from it for a
-- known name, so that the trial's values are the model's joint choice.
-- Written in the transaction of the trial's insert; deleted with it.

CREATE TABLE trial_proposals (
    trial_id bigint PRIMARY KEY REFERENCES trials (id) ON DELETE CASCADE,
    params   json   NOT NULL
);
