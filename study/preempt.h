/*
 * study/preempt.h - a trial handed back by a worker that lost its machine
 * (POST /v1/trials/{id}/preempt; docs/trainer.md, "Preemption").
 *
 * The trial keeps its id, number and params and goes back to the queue
 * (state waiting) with resume_from_step its last reported step; the next
 * suggest, whichever worker and process asks, hands it out before any new
 * configuration with that step and the last checkpoint reported. It stays
 * one trial, so it counts once in the budget. A lapsed lease on a trial
 * with a checkpoint does the same (store/lease_sql.h).
 */
#ifndef HPOD_STUDY_PREEMPT_H
#define HPOD_STUDY_PREEMPT_H

#include "common/status.h"
#include "store/db.h"
#include "store/model.h"
#include "study/access.h"

/*
 * preempt_trial - trial id goes back to the queue (reason may be
 * NULL), under its study's row lock then its own, so that a suggest of any
 * process either handed it out before or sees it waiting after. A waiting
 * trial (preempted already, or enqueued and never handed out) is left as
 * it is: 200 again. Any other state than pending or running is 409.
 * *out is the trial as then stored. by is not recorded: a preemption is a
 * trainer's traffic, like a report (study/audit.h); it takes the caller
 * like fail so that the handler calls both the same way.
 */
enum hpod_status preempt_trial(struct db *db, long long id, const char *reason,
                               const struct principal *by, struct trial *out,
                               struct hpod_err *err);

#endif
