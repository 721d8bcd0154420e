/*
 * study/preempt.c - a preempted trial back in the queue; see preempt.h.
 */
#include "study/preempt.h"

#include "store/lease_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"
#include "study/trials.h"

enum hpod_status
preempt_trial(struct db *db, long long id, const char *reason,
              const struct principal *by, struct trial *out,
              struct hpod_err *err)
{
    (void)by; /* not audited (preempt.h) */
    struct trial t = {0};
    long long study_id = 0;
    enum hpod_status st;

    /* The study lock first, as suggest takes it: a suggest that claims
     * waiting trials runs wholly before or after this. */
    if ((st = trial_store_study_of(db, id, &study_id, err)) != HPOD_OK ||
        (st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = study_store_lock(db, study_id, err)) != HPOD_OK ||
        (st = trial_store_get(db, id, 1, &t, err)) != HPOD_OK)
        goto out;
    if (t.state == TRIAL_PENDING || t.state == TRIAL_RUNNING)
        st = lease_store_preempt(db, id, reason, err);
    else if (t.state != TRIAL_WAITING)
        st = trials_not_live(&t, "preempt", err);
    if (st != HPOD_OK || (st = db_commit(db, err)) != HPOD_OK)
        goto out;
    st = trial_store_get(db, id, 0, out, err);
out:
    if (st != HPOD_OK)
        db_rollback(db);
    trial_clear(&t);
    return st;
}
