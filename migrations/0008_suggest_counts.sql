-- 0008_suggest_counts.sql - what a suggest counts, without a scan of the
-- study's trials.
--
-- A suggest reads, under the study lock, how many trials the study has
-- issued (budget), taken (finite candidates) and has waiting. It counted
-- every trial of the study by state, a scan that grew with the study and
-- held the lock (issue 14). Now: the number of trials is the next issue
-- number (numbers are given as max + 1 under the study lock, and trials
-- are only deleted with their study), waiting ones have their partial
-- index (0006), and these two partial indexes hold the rare rows a
-- suggest subtracts: trials failed by lease expiry and trials added with
-- values obtained elsewhere.

CREATE INDEX trials_expired ON trials (study_id) WHERE lease_expired;
CREATE INDEX trials_added ON trials (study_id) WHERE origin = 'added';

-- The trials a worker holds, which every suggest hands back (and renews)
-- under the lock: found among the study's live trials by worker, not by a
-- walk over every live trial of the study.
CREATE INDEX trials_worker_live ON trials (study_id, worker)
    WHERE state IN ('pending', 'running');
