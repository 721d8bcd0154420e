-- 0007_simulation_jobs.sql - simulations become jobs (issue 14).
--
-- POST .../simulate writes a queued row with the validated request; a
-- bounded pool of workers in every `hpod serve` (bench/jobs) claims it
-- (FOR UPDATE SKIP LOCKED), renews lease_expires_at while it computes and
-- writes progress, then the result. A job whose process died is claimed
-- again by any replica once its lease lapses; attempt fences the old
-- owner's late writes. Rows written before this migration are done.
ALTER TABLE simulations
    ADD COLUMN state text NOT NULL DEFAULT 'done'
        CHECK (state IN ('queued', 'running', 'done', 'failed')),
    ADD COLUMN request json,
    ADD COLUMN runs_done integer NOT NULL DEFAULT 0 CHECK (runs_done >= 0),
    ADD COLUMN runs_total integer NOT NULL DEFAULT 0 CHECK (runs_total >= 0),
    ADD COLUMN error text,
    ADD COLUMN error_field text,
    ADD COLUMN lease_expires_at timestamptz,
    ADD COLUMN attempt integer NOT NULL DEFAULT 0,
    ALTER COLUMN summary DROP NOT NULL,
    ALTER COLUMN sequences DROP NOT NULL,
    ALTER COLUMN seconds DROP NOT NULL;

UPDATE simulations
   SET runs_total = COALESCE((summary->>'repeats')::integer, 0),
       runs_done = COALESCE((summary->>'repeats')::integer, 0);

ALTER TABLE simulations ALTER COLUMN state SET DEFAULT 'queued';
ALTER TABLE simulations ADD CONSTRAINT simulations_done_has_result
    CHECK (state <> 'done' OR (summary IS NOT NULL AND sequences IS NOT NULL
                               AND seconds IS NOT NULL));

CREATE INDEX simulations_pending ON simulations (id)
    WHERE state IN ('queued', 'running');
