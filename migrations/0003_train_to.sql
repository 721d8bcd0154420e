-- 0003_train_to.sql - the fidelity a trial is to be trained to.
--
-- Multi-stage BO (DESIGN.md §3) trains each stage's configurations to that
-- stage's number of steps and promotes the best k to the next stage's: the
-- step to train to is the trial's stage, stored with it so that every hpod
-- process on the database rebuilds the same stages. NULL for algorithms
-- that do not set one.

ALTER TABLE trials ADD COLUMN train_to integer
    CHECK (train_to IS NULL OR train_to >= 1);
