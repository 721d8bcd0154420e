/*
 * store/lease_store.h - the end of a trial's lease other than a report:
 * its lapse and a preemption (docs/trainer.md, "Preemption").
 */
#ifndef HPOD_LEASE_STORE_H
#define HPOD_LEASE_STORE_H

#include "common/status.h"
#include "store/db.h"

/*
 * lease_store_expire - every live trial whose lease has lapsed, of one
 * study (study_id > 0) or of all (0): failed ("lease expired"; its
 * candidate becomes free again), or back in the queue when it reported a
 * checkpoint (store/lease_sql.h). *expired (may be NULL) receives how
 * many were failed, *requeued (may be NULL) how many went back.
 */
enum hpod_status lease_store_expire(struct db *db, long long study_id,
                                    long long *expired, long long *requeued,
                                    struct hpod_err *err);

/*
 * lease_store_preempt - a live trial goes back to the queue: state
 * 'waiting', no worker and no lease, reason "preempted: <reason>" (or
 * "preempted"), resume_from_step its last reported step (unchanged when
 * it reported none). Call with the trial locked and live.
 */
enum hpod_status lease_store_preempt(struct db *db, long long id,
                                     const char *reason, struct hpod_err *err);

#endif
