-- 0011_trial_decisions.sql - why each trial was suggested and what the
-- multi-fidelity rules decided about it (issue 15, GET
-- /v1/trials/{id}/explain).
--
-- What a model sampler knew when it chose (its mean, sd, acquisition,
-- incumbent and runners-up) cannot be recomputed later: the history and
-- the kept model move on. A row is written in the transaction that
-- inserts (suggest), promotes/resumes (promote), stops (stop) or seeds
-- into the next stage (stage) the trial. Trials of a random study get no
-- row: the answer follows from the study's algorithm, and the random
-- sampler's throughput stays as it was. detail is JSON text (read back
-- byte for byte, see 0005_json_text.sql).

CREATE TABLE trial_decisions (
    trial_id bigint NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    seq      integer NOT NULL CHECK (seq >= 0),
    at       timestamptz NOT NULL DEFAULT now(),
    kind     text NOT NULL
             CHECK (kind IN ('suggest', 'promote', 'stop', 'stage')),
    detail   text NOT NULL,
    PRIMARY KEY (trial_id, seq)
);
