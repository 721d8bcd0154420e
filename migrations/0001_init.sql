-- 0001_init.sql - studies, their finite candidates, trials, final and
-- intermediate values.
--
-- The trial lifecycle (DESIGN.md §2) lives in trials.state. A trial failed
-- because its lease lapsed is flagged lease_expired: it does not count
-- against the budget and it frees its candidate, which the partial unique
-- index below then lets exactly one new trial take. That index is the
-- database's own guarantee that two workers never hold the same finite
-- candidate, whatever the application does.

CREATE TABLE studies (
    id            bigserial PRIMARY KEY,
    name          text NOT NULL,
    definition    jsonb NOT NULL,           -- normalized study definition
    budget        integer CHECK (budget IS NULL OR budget >= 1),
    lease_seconds integer NOT NULL CHECK (lease_seconds BETWEEN 1 AND 604800),
    n_candidates  integer,
    benchmark     text,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE candidates (
    study_id bigint  NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
    idx      integer NOT NULL CHECK (idx >= 0),
    params   jsonb   NOT NULL,
    PRIMARY KEY (study_id, idx)
);

CREATE TABLE trials (
    id               bigserial PRIMARY KEY,
    study_id         bigint  NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
    seq              integer NOT NULL,      -- 0-based issue order in the study
    state            text    NOT NULL CHECK (state IN
                         ('pending', 'running', 'completed', 'failed',
                          'pruned', 'paused')),
    params           jsonb   NOT NULL,
    candidate        integer,               -- candidates.idx, finite studies
    worker           text    NOT NULL,
    values           jsonb   NOT NULL DEFAULT '{}'::jsonb,
    reason           text,
    lease_expired    boolean NOT NULL DEFAULT false,
    lease_expires_at timestamptz,
    resume_from_step integer,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (study_id, seq),
    CHECK (state IN ('pending', 'running') OR lease_expires_at IS NULL),
    CHECK (NOT lease_expired OR state = 'failed')
);

CREATE UNIQUE INDEX trials_candidate_once
    ON trials (study_id, candidate)
    WHERE candidate IS NOT NULL AND NOT lease_expired;
CREATE INDEX trials_study_state ON trials (study_id, state);
CREATE INDEX trials_live_lease ON trials (lease_expires_at)
    WHERE state IN ('pending', 'running');

-- One row per (trial, step): what an intermediate report carried and what
-- the server answered, so a repeated report gets the same answer.
CREATE TABLE intermediate_values (
    trial_id   bigint  NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    step       integer NOT NULL CHECK (step >= 0),
    values     jsonb   NOT NULL,
    action     text    NOT NULL CHECK (action IN ('continue', 'stop')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (trial_id, step)
);
