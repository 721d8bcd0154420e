-- 0009_gp_models.sql - the GP hyperparameters a study keeps between
-- suggestions (issue 14).
--
-- A GP suggestion refitted its hyperparameters (tens of O(n³) Cholesky
-- factorizations) on every call. Now it refits on a schedule
-- (core/gp.h, gp_refit_due) and otherwise conditions with the kept ones.
-- They are state of the study, not of a process: every hpod serve replica
-- and a restarted process choose from the same row, so the same history
-- gives the same suggestion. Written in the suggest transaction, under the
-- study row lock. hyper holds ℓ_1..ℓ_dim, σ_f², σ_n² (standardized y);
-- lml_fit is the fit's log marginal likelihood per observation.

CREATE TABLE study_gp_models (
    study_id  bigint PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
    kernel    integer NOT NULL,
    n_fit     integer NOT NULL CHECK (n_fit >= 0),
    lml_fit   double precision NOT NULL,
    hyper     double precision[] NOT NULL,
    fitted_at timestamptz NOT NULL DEFAULT now()
);
