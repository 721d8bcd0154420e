-- 0013_warm_start.sql - the source prior of a warm-started study (issue
-- 16, "warm_start": {"study": id} | {"benchmark": name}).
--
-- The source's values, as normal scores of their ranks, carried to each
-- of the study's candidates (core/transfer.c), computed once when the
-- study is created and kept here: suggest reads this row, so the study's
-- decisions are the same in every process and do not move when the source
-- study gets more trials later. prior[k] belongs to candidate idx k.

CREATE TABLE study_warm_priors (
    study_id bigint PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
    prior    double precision[] NOT NULL
);
