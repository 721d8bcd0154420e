/*
 * study/exclude.c - exclusions; see exclude.h.
 */
#include "study/exclude.h"

#include "store/exclude_store.h"
#include "store/gp_model_store.h"
#include "store/study_store.h"
#include "store/trial_store.h"

/* Sets (reason not NULL) or clears trial id's exclusion in one
 * transaction under the study lock, the order suggest takes. */
static enum hpod_status
exclusion(struct db *db, long long id, const char *reason, long long token_id,
          struct trial *out, struct hpod_err *err)
{
    long long study_id = 0;
    int changed = 0;
    enum hpod_status st;

    if ((st = trial_store_study_of(db, id, &study_id, err)) != HPOD_OK ||
        (st = db_begin(db, err)) != HPOD_OK)
        return st;
    if ((st = study_store_lock(db, study_id, err)) != HPOD_OK)
        goto out;
    st = reason ? exclude_store_set(db, id, reason, token_id, &changed, err)
                : exclude_store_clear(db, id, &changed, err);
    /* The kept hyperparameters were fitted with (or without) the trial. */
    if (st == HPOD_OK && changed)
        st = gp_model_store_drop(db, study_id, err);
    if (st != HPOD_OK || (st = db_commit(db, err)) != HPOD_OK)
        goto out;
    return trial_store_get(db, id, 0, out, err);
out:
    db_rollback(db);
    return st;
}

enum hpod_status
study_trial_exclude(struct db *db, long long id, const char *reason,
                    long long token_id, struct trial *out, struct hpod_err *err)
{
    return exclusion(db, id, reason ? reason : "", token_id, out, err);
}

enum hpod_status
study_trial_restore(struct db *db, long long id, struct trial *out,
                    struct hpod_err *err)
{
    return exclusion(db, id, NULL, 0, out, err);
}
