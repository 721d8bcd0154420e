-- 0014_simulation_slices.sql - simulations computed in slices, served
-- round-robin across labs, capped per lab and cancellable (issue 27).
--
-- A worker (bench/jobs) claims a slice of a job: at most a few repeats or
-- about HPOD_SIM_SLICE_MS of work. A slice that does not end the job is
-- stored in simulation_slices (its runs' sequences) and the job goes back
-- to the queue with runs_stored advanced; the slice that ends it reads the
-- others, writes the result and deletes them. Runs are seeded seed + r,
-- so the result is the one computed in a single piece. A killed process
-- loses at most the slice it was computing.
--
-- simulation_turns keeps, per lab ('' for jobs asked with a token of
-- every lab), when its last slice started: the next slice goes to the lab
-- served longest ago, then to its oldest job.
--
-- 'cancelled': DELETE /v1/simulations/{id} on a queued or running job.
-- Written to apply once or again: every step checks what exists.
ALTER TABLE simulations DROP CONSTRAINT IF EXISTS simulations_state_check;
ALTER TABLE simulations ADD CONSTRAINT simulations_state_check
    CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled'));

ALTER TABLE simulations
    ADD COLUMN IF NOT EXISTS runs_stored integer NOT NULL DEFAULT 0
        CHECK (runs_stored >= 0);

CREATE TABLE IF NOT EXISTS simulation_slices (
    simulation_id bigint NOT NULL REFERENCES simulations (id)
        ON DELETE CASCADE,
    first_run  integer NOT NULL CHECK (first_run >= 0),
    runs       integer NOT NULL CHECK (runs > 0),
    sequences  json NOT NULL,    -- runs arrays of 0-based row ids
    seconds    double precision NOT NULL,
    PRIMARY KEY (simulation_id, first_run)
);

CREATE TABLE IF NOT EXISTS simulation_turns (
    lab           text PRIMARY KEY,
    last_slice_at timestamptz NOT NULL
);

-- The per-lab cap counts a lab's queued and running jobs.
CREATE INDEX IF NOT EXISTS simulations_lab_pending
    ON simulations ((coalesce(lab, '')))
    WHERE state IN ('queued', 'running');
