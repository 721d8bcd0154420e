-- 0030_checkpoints.sql - the checkpoint an intermediate report names, and
-- trials handed back to the queue (docs/trainer.md, "Preemption").
--
-- A report at step k may carry the URI of the checkpoint the trainer saved
-- there (at most 2,048 bytes; hpod stores it and never reads it). It is
-- kept with the step, like the step's action: a step is recorded once, so
-- its checkpoint never changes. A trial's checkpoint is the one of its
-- highest step that has one.
--
-- A preempted trial (POST /v1/trials/{id}/preempt, or a lapsed lease on a
-- trial with a checkpoint) goes back to state 'waiting' with its worker
-- cleared and resume_from_step set to its last reported step: the next
-- suggest hands it out before any new configuration, the path enqueued
-- trials take, and it counts once in the budget because it stays one row.

ALTER TABLE intermediate_values ADD COLUMN checkpoint text
    CHECK (checkpoint IS NULL OR octet_length(checkpoint) BETWEEN 1 AND 2048);
